/* sput.c - put lines from stdin to a queue, written as IBM's amqsput sample is used:
 *     sput QUEUE [QMGR]
 * One message per line (without its newline); an empty line or the end of input stops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmqc.h>

int main(int argc, char **argv)
{
    MQOD od = {MQOD_DEFAULT};
    MQMD md = {MQMD_DEFAULT};
    MQPMO pmo = {MQPMO_DEFAULT};
    MQHCONN hcon;
    MQHOBJ hobj;
    MQLONG cc, reason;
    char qmgr[MQ_Q_MGR_NAME_LENGTH + 1] = "";
    char line[1024];

    if (argc < 2) {
        fprintf(stderr, "usage: sput QUEUE [QMGR]\n");
        exit(99);
    }
    if (argc > 2)
        strncpy(qmgr, argv[2], MQ_Q_MGR_NAME_LENGTH);
    MQCONN(qmgr, &hcon, &cc, &reason);
    if (cc == MQCC_FAILED) {
        printf("MQCONN ended with reason code %d\n", (int)reason);
        exit((int)reason);
    }
    strncpy(od.ObjectName, argv[1], MQ_Q_NAME_LENGTH);
    MQOPEN(hcon, &od, MQOO_OUTPUT | MQOO_FAIL_IF_QUIESCING, &hobj, &cc, &reason);
    if (cc == MQCC_FAILED) {
        printf("MQOPEN ended with reason code %d\n", (int)reason);
        exit((int)reason);
    }
    memcpy(md.Format, MQFMT_STRING, MQ_FORMAT_LENGTH);
    pmo.Options = MQPMO_NO_SYNCPOINT | MQPMO_FAIL_IF_QUIESCING;
    int count = 0;
    while (fgets(line, sizeof line, stdin) != NULL) {
        size_t length = strlen(line);
        if (length > 0 && line[length - 1] == '\n')
            line[--length] = '\0';
        if (length == 0)
            break;
        memcpy(md.MsgId, MQMI_NONE, sizeof md.MsgId);
        MQPUT(hcon, hobj, &md, &pmo, (MQLONG)length, line, &cc, &reason);
        if (cc != MQCC_OK) {
            printf("MQPUT ended with reason code %d\n", (int)reason);
            break;
        }
        count++;
    }
    MQCLOSE(hcon, &hobj, MQCO_NONE, &cc, &reason);
    MQDISC(&hcon, &cc, &reason);
    printf("sput: %d message(s) put\n", count);
    return 0;
}
