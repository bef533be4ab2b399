/* bridgeapp.c - old-style terminal applications in C for the ROUTC tests
 * (tests/cprog/test_cprog_routc.py): they read AM0SGs and answer with routc(). */
#include <stdlib.h>
#include <string.h>

#include <tpf/c_am0sg.h>
#include <tpf/c_rc0pl.h>
#include <tpf/tpfapi.h>

static const char HEX[] = "0123456789ABCDEF";

/* `n` bytes as hexadecimal digits at `out` (2n characters); returns the end. */
static char *hex(char *out, const unsigned char *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        *out++ = HEX[bytes[i] >> 4];
        *out++ = HEX[bytes[i] & 0xF];
    }
    return out;
}

/* The bridge's application: the AM0SG on D0 and the RCPL at EBW000 in; the answer
 * "OK <text> LNI=<am0lni> FLG=<am0flg> DES=<rcpldes> ORG=<rcplorg> CTL=<rcplctl>" goes
 * back to the origin with routc on D0, which releases D0 (else abort(): a dump). */
void CBAL(void)
{
    struct eb0eb *ecb = ecbptr();
    struct am0sg *in = ecb->ce1cr[D0].ce1crx;
    const struct rc0pl *rcpl = (const struct rc0pl *)ecb->ebw000;
    if (in == NULL || !am0sg_valid(in) || levtest(D0) != L1)
        abort();
    char answer[AM0SG_MAX_TEXT];
    size_t length = am0sg_length(in);
    if (length > 200)
        length = 200;
    char *end = answer;
    memcpy(end, "OK ", 3);
    end += 3;
    memcpy(end, in->am0txt, length);
    end += length;
    memcpy(end, " LNI=", 5);
    end = hex(end + 5, in->am0lni, 3);
    memcpy(end, " FLG=", 5);
    end = hex(end + 5, &in->am0flg, 1);
    memcpy(end, " DES=", 5);
    end = hex(end + 5, rcpl->rcpldes, 4);
    memcpy(end, " ORG=", 5);
    end = hex(end + 5, rcpl->rcplorg, 4);
    memcpy(end, " CTL=", 5);
    end = hex(end + 5, &rcpl->rcplctl, 1);
    if (am0sg_build(in, answer, (size_t)(end - answer), "CBAL") != 0)
        abort();
    struct rc0pl reply = rcpl_reply(rcpl);
    routc(&reply, D0);
    if (levtest(D0) != 0 || ecb->ce1cr[D0].ce1crx != NULL)
        abort();
}

/* Send `text` to the terminal whose LNIATA is at EBW000 from a block on D3. */
static void send(const char *text)
{
    const unsigned char *lniata = ecbptr()->ebw000;
    struct am0sg *m = getcc(D3, GETCC_TYPE, L1);
    if (am0sg_build(m, text, strlen(text), "CTRM") != 0)
        abort();
    struct rc0pl rcpl = {{0, lniata[0], lniata[1], lniata[2]}, {0}, 0, {0}, {0}};
    tpf_ebcdic_name(rcpl.rcplorg, "CTRM");
    rcpl.rcplctl = RCPL_AM0SG | RCPL_ORIGIN_PROGRAM;
    routc(&rcpl, D3);
}

/* Two messages to the terminal named at EBW000, one after the other on D3 (the second
 * getcc works only if routc released D3). */
void CTRM(void)
{
    send("SEAT 12A");
    send("SEAT 12B");
}

/* routc with no RCPL at all (a null pointer). */
void CNUL(void)
{
    struct am0sg *m = getcc(D1, GETCC_TYPE, L1);
    am0sg_build(m, "X", 1, NULL);
    routc(NULL, D1);
}
