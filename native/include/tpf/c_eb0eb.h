/* tpf/c_eb0eb.h - struct eb0eb, the entry control block as a C program sees it
 *
 * Written for tpfemu from IBM's published ECB layout (tpf-facts.md §1.1, facts only):
 * CHW at +0, BAD at +4, the application work area EBW000-EBW103 at +0x008, the switch
 * area at +0x070, the file address reference words FA0-FAF at +0x078 (8 bytes each, then
 * FAP at +0x0F8) and the core block reference words CR0-CRF at +0x100.
 *
 * Ours, on a 64-bit machine: a CBRW holds a real 8-byte pointer, so each is 16 bytes
 * (pointer, block type, byte count, 4 bytes of padding) instead of TPF's 8. EBW000-
 * EBW103 are one array: EBWnnn is ebw000[nnn].
 *
 * The ECB itself is the Python ecb.Ecb of the calling entry; this structure mirrors it
 * (docs/cprograms.md, "The ECB"): the runtime fills it when the entry's C program is
 * entered and after every call that changes a data level (getcc, relcc, creec, entrc),
 * and copies EBW000-EBW103 back to the Ecb whenever control leaves C (return, exit,
 * entrc, the create calls). The core blocks are shared memory: ce1crx points at the
 * Ecb's block itself. Applications must never write a CBRW (as on TPF). The FARWs
 * and the switch area are not mirrored (the file macros are not part of the C API).
 */
#ifndef TPF_C_EB0EB_H
#define TPF_C_EB0EB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A core block reference word: the block's address, type (CE1CTx) and byte count. */
struct tpf_cbrw {
    void *ce1crx;           /**< the block (NULL when the level holds none) */
    uint16_t ce1ctx;        /**< block type: 0x0001 none, L0 L1 L2 L4 */
    uint16_t ce1ccx;        /**< byte count */
    uint32_t ce1cr_pad;     /**< (ours: padding after the 8-byte pointer) */
};

struct eb0eb {
    uint32_t ce1chw;                /**< +0x000 ECB chain word */
    uint32_t ce1bad;                /**< +0x004 post-interrupt branch address */
    unsigned char ebw000[104];      /**< +0x008 EBW000-EBW103: the application work area */
    unsigned char ce1sw[8];         /**< +0x070 switch area (not mirrored) */
    unsigned char ce1fa[16][8];     /**< +0x078 FARWs FA0-FAF (not mirrored) */
    unsigned char ce1fap[8];        /**< +0x0F8 FARW of the active program */
    struct tpf_cbrw ce1cr[16];      /**< +0x100 CBRWs CR0-CRF (16 bytes each here) */
};

#ifdef __cplusplus
}
#endif

#endif /* TPF_C_EB0EB_H */
