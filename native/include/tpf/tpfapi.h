/* tpf/tpfapi.h - the part of TPF's C API that applications call, for tpfemu
 *
 * Written for tpfemu from IBM's published function descriptions (tpf-facts.md §1; facts
 * only). Every call acts on the ECB of the entry that runs the calling C program; the
 * runtime library (tpfemu's, linked in by `tpfemu cc`) carries it out in the running
 * system, in the same process (docs/cprograms.md).
 *
 * Misuse is TPF's system error, as for a Python program: GETCC on a level holding a
 * block, RELCC on an empty level, an unknown program name, a commit call with no scope,
 * ... The call does not return: the entry ends with a system-error dump on the console.
 *
 * Ours (docs/deviations.md): the create calls (cretc too) and entrc take the program as its
 * 4-character name (a string), the __CREMC-style form of TPF's C API, because the
 * program may be a Python one that no linker can resolve; getcc takes its optional fill
 * byte only with GETCC_FILL. routc returns int (always 0: a failure does not return),
 * where IBM's returns void; a program that ignores the result compiles either way.
 */
#ifndef TPF_TPFAPI_H
#define TPF_TPFAPI_H

#include "c_eb0eb.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The 16 data levels. */
enum t_lvl { D0, D1, D2, D3, D4, D5, D6, D7, D8, D9, DA, DB, DC, DD, DE, DF };

/** Block types (CE1CTx), as getcc takes them with GETCC_TYPE and levtest returns them. */
#define L0 0x0011  /**< 127 bytes */
#define L1 0x0021  /**< 381 bytes */
#define L2 0x0031  /**< 1055 bytes */
#define L4 0x0051  /**< 4095 bytes */

/** getcc's format: the third argument is a block type, or a byte count (the smallest
 * block holding it is taken); GETCC_FILL may be or-ed in, then a fourth argument is the
 * byte the block is filled with (blocks are zero-filled otherwise). */
enum t_getfmt { GETCC_TYPE = 0, GETCC_SIZE = 1, GETCC_FILL = 0x100 };

/** creec's priority. */
#define CREEC_IMMEDIATE 0
#define CREEC_DEFERRED 1

/** cretc's flags: exactly one of CRETC_SECONDS and CRETC_MINUTES (the unit of `units`),
 * optionally or-ed with CRETC_1052 (accepted; there is no 1052 state here). */
#define CRETC_SECONDS 0x01
#define CRETC_MINUTES 0x02
#define CRETC_1052 0x04

/** wtopc's routing destinations (any sum; 0 is WTOPC_EBROUT): every message goes to the
 * console here. The values are ours. */
#define WTOPC_EBROUT 0x01L
#define WTOPC_RO 0x02L
#define WTOPC_PRC 0x04L
#define WTOPC_TAPE 0x08L
#define WTOPC_DASD 0x10L
#define WTOPC_COMM 0x20L
#define WTOPC_AUDT 0x40L
#define WTOPC_UNSOL 0x80L

/** wtopc's chaining: accepted, each call is one console message. */
enum t_wtopc_chain { WTOPC_NO_CHAIN, WTOPC_CHAIN, WTOPC_CHAIN_END, WTOPC_NO_PAGE,
                     WTOPC_PAGE, WTOPC_PAGE_END };

/** wtopc's optional header (our layout): the message becomes
 * "PPPPnnnnS hh.mm.ss text", TPF's system message format: a 4-character prefix, a
 * 4-digit number and a severity letter (I, E, W, A or T). */
struct wtopc_header {
    char prefix[4];
    unsigned short number;
    char severity;
};
#define WTOPC_NO_HEADER ((const void *)0)

/** serrc_op's status: what happens after the dump. */
enum t_serrc { SERRC_EXIT, SERRC_RETURN, SERRC_CATA };

/** The calling entry's ECB. */
struct eb0eb *ecbptr(void);

/** GETCC: get a core block on `level`; returns its address (also in the level's CBRW). */
void *getcc(enum t_lvl level, enum t_getfmt format, int value, ...);
/** RELCC: release the core block on `level`. */
void relcc(enum t_lvl level);
/** LEVTA: the type of the block on `level` (L0 ... L4), or 0 when it holds none. */
int levtest(enum t_lvl level);
/** CRUSA: release the blocks on the `count` levels that follow; empty levels are
 * skipped. */
void crusa(int count, enum t_lvl level, ...);
/** DETAC: detach the block on `level` (the level becomes free; a system error if it
 * holds none). */
void detac(enum t_lvl level);
/** ATTAC: attach the block most recently detached from `level` back to it; returns its
 * address. A system error if the level holds a block or nothing was detached from it. */
void *attac(enum t_lvl level);

/** CREMC / CREDC / CREXC: create an entry for program `segname` with `length` (0-104)
 * bytes of `parm` in its EBW000. CREXC is low priority and refused while storage is
 * short (a system error). */
void cremc(int length, const void *parm, const char *segname);
void credc(int length, const void *parm, const char *segname);
void crexc(int length, const void *parm, const char *segname);
/** CREEC: as cremc, and the block on `level` moves to D0 of the new entry. */
void creec(int length, const void *parm, const char *segname, enum t_lvl level,
           int priority);
/** CRETC: create an entry for program `segname` after `units` seconds or minutes (as
 * `flags` says), with the 4-byte action word at `action` (null: zeros) in EBW000-EBW003. */
void cretc(int flags, const char *segname, int units, const void *action);
/** TPF's string forms of the same calls. */
#define __CRETC(flags, segname, units, action) cretc((flags), (segname), (units), (action))
#define __CREMC(length, parm, segname) cremc((length), (parm), (segname))
#define __CREDC(length, parm, segname) credc((length), (parm), (segname))
#define __CREXC(length, parm, segname) crexc((length), (parm), (segname))
#define __CREEC(length, parm, segname, level, prio) \
    creec((length), (parm), (segname), (level), (prio))

/** ENTRC: enter program `segname` (C or Python) and return here when it returns
 * (BACKC). EBW000-EBW103 and the data levels are the entry's, shared with the callee. */
void entrc(const char *segname);

/** DEFRC: defer the entry (it keeps its blocks), then go on. */
void defrc(void);

/** SERRC: a system-error dump of the entry, numbered `number` (1-X'FFFFFF', shown with
 * the prefix U) with the message `msg` (null: none; at most 255 characters are kept).
 * SERRC_EXIT (and SERRC_CATA) then end the entry, SERRC_RETURN returns to the caller.
 * `slist` (extra storage to dump) is not used: pass NULL. */
void serrc_op(enum t_serrc status, int number, const char *msg, void *slist[]);

/** WTOPC: send the text at `text_ptr` (null-terminated) to the operator's console, with
 * the header at `header_ptr` (a struct wtopc_header) or WTOPC_NO_HEADER. Returns 0. */
int wtopc(const char *text_ptr, long int rout, enum t_wtopc_chain chain,
          const void *header_ptr);

/* EXITC is exit(): `tpfemu cc` links every program with -Wl,--wrap=exit, so exit(rc)
 * ends the entry (in a main() program run by `tpfemu exec`, it ends main with rc).
 * Returning from a program's entry function is BACKC after entrc, else EXITC. */

/** TPF commit scopes (TXBGC, TXCMC, TXRBC): MQ work in a scope joins it. Return TX_OK;
 * tx_commit and tx_rollback with no scope open return TX_PROTOCOL_ERROR. */
#define TX_OK 0
#define TX_PROTOCOL_ERROR (-5)
#define TX_FAIL (-7)
int tx_begin(void);
int tx_commit(void);
int tx_rollback(void);

/** ROUTC: send the message in the block on `level` where the RCPL at `rcpl` routes it
 * (a struct rc0pl of tpf/c_rc0pl.h: RCPL_SIZE bytes are read; the AM0SG layout is
 * tpf/c_am0sg.h) and release the level. The router is the ROUTC bridge: to an MQ
 * terminal the text becomes the MQ reply to the request the terminal owes, to an
 * ordinary terminal it goes to that terminal's log (docs/bridge.md). Returns 0. An
 * empty level, an unknown LNIATA (E0602), an unreadable RCPL or message, or a null
 * `rcpl` (E0603) is a system error: the call does not return, the entry ends with a
 * dump and the level still holds the block. */
int routc(const void *rcpl, enum t_lvl level);

#ifdef __cplusplus
}
#endif

#endif /* TPF_TPFAPI_H */
