/*
 * cta_shared_w5 - cta_shared.c with 5-word (20-byte) shared windows.
 *
 * A CTA in slot j of its SM has its window at j * 20: the slots' bases set and clear the low
 * bits (2-7) that cta_shared's 256-byte windows leave 0, so a base bit lost in one CTA slot
 * moves that CTA's window onto a neighbour's or into stale words.
 */
#define CTA_SHARED_WORDS 5
#include "cta_shared.c"
