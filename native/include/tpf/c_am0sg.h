/* tpf/c_am0sg.h - struct am0sg, the application message (AM0SG) of a terminal, for tpfemu
 *
 * What IBM publishes (tpf-facts.md §4, facts only): messages to programs are AM0SGs, and
 * terminal messages travel in 381-byte (L1) blocks; the ROUTC bridge puts the AM0SG of
 * an MQ request on D0 of the application's entry. IBM has not published the AM0SG's
 * fields: the layout below is OURS, the one definition of which is
 * tpfemu/bridge/layouts.py (tests/cprog/test_cprog_headers.py checks that this header
 * equals it; docs/bridge.md "Our layouts").
 *
 * Multi-byte integers are big-endian byte arrays (read and write them with tpf_be16,
 * tpf_set_be16, ... of tpf/c_rc0pl.h); the text is the MQ message's bytes as delivered
 * (no data conversion); program names are 4 EBCDIC characters.
 *
 *   +0  2  am0bid  record id X'C1D4' ("AM" in EBCDIC)
 *   +2  1  am0chk  record code check, X'00'
 *   +3  1  am0ctl  control, X'00'
 *   +4  4  am0pgm  program stamp: the program that built it (EBCDIC; blanks for none)
 *   +8  4  am0fch  forward chain: always 0 (longer messages are refused, not chained)
 *   +12 4  am0bch  backward chain: always 0
 *   +16 2  am0cct  text byte count, 0 to AM0SG_MAX_TEXT
 *   +18 3  am0lni  LNIATA of the terminal
 *   +21 1  am0flg  AM0SG_FROM_MQ: the message came through the MQ bridge
 *   +22 n  am0txt  the text; the rest of the block is X'00'
 */
#ifndef TPF_C_AM0SG_H
#define TPF_C_AM0SG_H

#include <stddef.h>
#include <string.h>

#include "c_rc0pl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AM0SG_BLOCK_SIZE 381    /**< an L1 block: the one size terminal messages use */
#define AM0SG_HEADER_SIZE 22    /**< the fields before am0txt */
#define AM0SG_MAX_TEXT 359      /**< the longest text: AM0SG_BLOCK_SIZE - AM0SG_HEADER_SIZE */
#define AM0SG_ID0 0xC1          /**< am0bid[0] ("A") */
#define AM0SG_ID1 0xD4          /**< am0bid[1] ("M") */
#define AM0SG_FROM_MQ 0x80      /**< am0flg: came through the MQ bridge */

struct am0sg {
    unsigned char am0bid[2];    /**< +0 record id */
    unsigned char am0chk;       /**< +2 record code check */
    unsigned char am0ctl;       /**< +3 control */
    unsigned char am0pgm[4];    /**< +4 program stamp (EBCDIC) */
    unsigned char am0fch[4];    /**< +8 forward chain (0) */
    unsigned char am0bch[4];    /**< +12 backward chain (0) */
    unsigned char am0cct[2];    /**< +16 text byte count */
    unsigned char am0lni[3];    /**< +18 LNIATA */
    unsigned char am0flg;       /**< +21 flags */
    unsigned char am0txt[AM0SG_MAX_TEXT]; /**< +22 text */
};

/** 1 when `m` starts with the AM0SG record id, else 0. */
static inline int am0sg_valid(const struct am0sg *m)
{
    return m->am0bid[0] == AM0SG_ID0 && m->am0bid[1] == AM0SG_ID1;
}

/** The text's byte count (am0cct). */
static inline size_t am0sg_length(const struct am0sg *m)
{
    return tpf_be16(m->am0cct);
}

/** Build a whole block in `m`: the header (program stamp `program`, 4 characters, or
 * NULL for blanks; no LNIATA, no flags) and `length` bytes of `text`, zeros after them.
 * Returns 0, or -1 (and changes nothing) when the text is longer than AM0SG_MAX_TEXT. */
static inline int am0sg_build(struct am0sg *m, const void *text, size_t length,
                              const char *program)
{
    if (length > AM0SG_MAX_TEXT)
        return -1;
    unsigned char stamp[4] = {0x40, 0x40, 0x40, 0x40};
    if (program != NULL)
        tpf_ebcdic_name(stamp, program);
    memmove(m->am0txt, text, length); /* (text may lie in the block itself) */
    memset(m->am0txt + length, 0, AM0SG_MAX_TEXT - length);
    memset(m, 0, AM0SG_HEADER_SIZE);
    m->am0bid[0] = AM0SG_ID0;
    m->am0bid[1] = AM0SG_ID1;
    memcpy(m->am0pgm, stamp, 4);
    tpf_set_be16(m->am0cct, (unsigned)length);
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* TPF_C_AM0SG_H */
