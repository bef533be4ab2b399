/* tpf/c_rc0pl.h - struct rc0pl, the routing control parameter list (RCPL), for tpfemu
 *
 * What IBM publishes (tpf-facts.md §4, facts only): the RCPL sits at EBW000, holds a
 * destination (4 bytes), an origin (4 bytes) and control (4 bytes basic, 8 extended),
 * and is what ROUTC (routc()) routes a message by. IBM has not published its field
 * names or flag values: the fields below are OURS, the one definition of which is
 * tpfemu/bridge/layouts.py (tests/cprog/test_cprog_headers.py checks that this header
 * equals it; docs/bridge.md "Our layouts").
 *
 * Every multi-byte field is a byte array holding a big-endian value (as on
 * z/Architecture), so the structure has no padding and reads the same on any machine;
 * tpf_be16/tpf_be32 and tpf_set_be16/tpf_set_be32 read and write them. Program names
 * are 4 EBCDIC characters (tpf_ebcdic_name).
 *
 *   +0  4  rcpldes  destination: a terminal is X'00' + its 3-byte LNIATA, a program its name
 *   +4  4  rcplorg  origin, the same two forms
 *   +8  1  rcplctl  flags: RCPL_DEST_PROGRAM, RCPL_ORIGIN_PROGRAM, RCPL_AM0SG, RCPL_FROM_MQ
 *   +9  3  rcplrsv  reserved, X'000000'
 *   +12 4  rcplext  extended control, reserved, X'00000000'
 *
 * routc() reads RCPL_SIZE (16) bytes from the pointer it is given: pass a whole
 * struct rc0pl (for example the one at EBW000, or one built with rcpl_reply).
 */
#ifndef TPF_C_RC0PL_H
#define TPF_C_RC0PL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RCPL_BASIC_SIZE 12      /**< the basic form: destination, origin, control */
#define RCPL_SIZE 16            /**< the extended form, which tpfemu uses */

#define RCPL_DEST_PROGRAM 0x80  /**< rcplctl: the destination is a program */
#define RCPL_ORIGIN_PROGRAM 0x40 /**< rcplctl: the origin is a program */
#define RCPL_AM0SG 0x20         /**< rcplctl: the message is an AM0SG */
#define RCPL_FROM_MQ 0x10       /**< rcplctl: the input came through the MQ bridge */

struct rc0pl {
    unsigned char rcpldes[4];   /**< +0 destination */
    unsigned char rcplorg[4];   /**< +4 origin */
    unsigned char rcplctl;      /**< +8 flags */
    unsigned char rcplrsv[3];   /**< +9 reserved */
    unsigned char rcplext[4];   /**< +12 extended control, reserved */
};

/** The big-endian 16-bit value at `p`. */
static inline unsigned tpf_be16(const unsigned char *p)
{
    return ((unsigned)p[0] << 8) | p[1];
}

/** The big-endian 32-bit value at `p`. */
static inline uint32_t tpf_be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/** Store `v` big-endian in 2 bytes at `p`. */
static inline void tpf_set_be16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

/** Store `v` big-endian in 4 bytes at `p`. */
static inline void tpf_set_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/** A program name (4 characters, A-Z and 0-9, as ASCII or the source's character set)
 * as the 4 EBCDIC bytes layouts hold; a character outside A-Z, 0-9 (or after the end
 * of a shorter string) becomes X'40', a blank. */
static inline void tpf_ebcdic_name(unsigned char out[4], const char *name)
{
    int ended = 0;
    for (size_t i = 0; i < 4; i++) {
        char c = ended ? '\0' : name[i];
        unsigned char e = 0x40;
        ended = ended || c == '\0';
        if (c >= 'A' && c <= 'I')
            e = (unsigned char)(0xC1 + (c - 'A'));
        else if (c >= 'J' && c <= 'R')
            e = (unsigned char)(0xD1 + (c - 'J'));
        else if (c >= 'S' && c <= 'Z')
            e = (unsigned char)(0xE2 + (c - 'S'));
        else if (c >= '0' && c <= '9')
            e = (unsigned char)(0xF0 + (c - '0'));
        out[i] = e;
    }
}

/** The RCPL of an answer to `in`: to its origin, from its destination, an AM0SG (as
 * tpfemu.bridge.Rcpl.reply does). */
static inline struct rc0pl rcpl_reply(const struct rc0pl *in)
{
    struct rc0pl out = {{0}, {0}, 0, {0}, {0}};
    for (size_t i = 0; i < 4; i++) {
        out.rcpldes[i] = in->rcplorg[i];
        out.rcplorg[i] = in->rcpldes[i];
    }
    out.rcplctl = (unsigned char)(RCPL_AM0SG
                                  | ((in->rcplctl & RCPL_ORIGIN_PROGRAM) ? RCPL_DEST_PROGRAM : 0)
                                  | ((in->rcplctl & RCPL_DEST_PROGRAM) ? RCPL_ORIGIN_PROGRAM : 0));
    return out;
}

#ifdef __cplusplus
}
#endif

#endif /* TPF_C_RC0PL_H */
