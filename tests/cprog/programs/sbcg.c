/* sbcg.c - browse a queue and print each message's descriptor and data, as IBM's
 * amqsbcg sample is used:  sbcg QUEUE [QMGR]
 * The messages stay on the queue. */
#include <stdio.h>
#include <string.h>

#include <cmqc.h>

static void print_chars(const char *label, const MQCHAR *field, size_t width)
{
    printf("  %-15s: '%.*s'\n", label, (int)width, field);
}

static void print_bytes(const char *label, const MQBYTE *field, size_t width)
{
    printf("  %-15s: X'", label);
    for (size_t i = 0; i < width; i++)
        printf("%02X", field[i]);
    printf("'\n");
}

int main(int argc, char **argv)
{
    MQOD od = {MQOD_DEFAULT};
    MQGMO gmo = {MQGMO_DEFAULT};
    MQHCONN hcon;
    MQHOBJ hobj;
    MQLONG cc, reason, length;
    char qmgr[MQ_Q_MGR_NAME_LENGTH + 1] = "";
    char buffer[256];

    if (argc < 2) {
        fprintf(stderr, "usage: sbcg QUEUE [QMGR]\n");
        return 99;
    }
    if (argc > 2)
        strncpy(qmgr, argv[2], MQ_Q_MGR_NAME_LENGTH);
    MQCONN(qmgr, &hcon, &cc, &reason);
    if (cc == MQCC_FAILED)
        return (int)reason;
    strncpy(od.ObjectName, argv[1], MQ_Q_NAME_LENGTH);
    MQOPEN(hcon, &od, MQOO_BROWSE, &hobj, &cc, &reason);
    if (cc == MQCC_FAILED)
        return (int)reason;
    gmo.Options = MQGMO_BROWSE_FIRST | MQGMO_NO_WAIT | MQGMO_ACCEPT_TRUNCATED_MSG;
    for (int n = 1;; n++) {
        MQMD md = {MQMD_DEFAULT};
        MQGET(hcon, hobj, &md, &gmo, sizeof buffer, buffer, &length, &cc, &reason);
        if (reason == MQRC_NO_MSG_AVAILABLE)
            break;
        if (cc == MQCC_FAILED) {
            printf("MQGET ended with reason code %d\n", (int)reason);
            return 1;
        }
        printf("message %d\n", n);
        printf("  %-15s: %d\n", "Priority", (int)md.Priority);
        printf("  %-15s: %d\n", "Persistence", (int)md.Persistence);
        print_chars("Format", md.Format, sizeof md.Format);
        print_bytes("MsgId", md.MsgId, sizeof md.MsgId);
        print_chars("PutApplName", md.PutApplName, sizeof md.PutApplName);
        printf("  %-15s: '%.*s'\n", "data", (int)(length < (MQLONG)sizeof buffer ? length
                                                   : (MQLONG)sizeof buffer), buffer);
        gmo.Options = MQGMO_BROWSE_NEXT | MQGMO_NO_WAIT | MQGMO_ACCEPT_TRUNCATED_MSG;
    }
    MQCLOSE(hcon, &hobj, MQCO_NONE, &cc, &reason);
    MQDISC(&hcon, &cc, &reason);
    return 0;
}
