/*
 * cta_shared_w12 - cta_shared.c with 12-word (48-byte) shared windows.
 *
 * A CTA in slot j of its SM has its window at j * 48: slot 1's base has bits 4 and 5 set
 * (small's m5 on 2ab1720 flipped bit 4 of slots 0-1's base where bit 5 is set: slot 1's
 * window moved onto slot 0's), and the other slots' bases mix bits 4-8.
 */
#define CTA_SHARED_WORDS 12
#include "cta_shared.c"
