/* sget.c - get and print every message of a queue, as IBM's amqsget sample is used:
 *     sget QUEUE [QMGR]
 * Ends when no message is left (MQRC_NO_MSG_AVAILABLE); exit code 2 when none came. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmqc.h>

int main(int argc, char **argv)
{
    MQOD od = {MQOD_DEFAULT};
    MQGMO gmo = {MQGMO_DEFAULT};
    MQHCONN hcon;
    MQHOBJ hobj;
    MQLONG cc, reason, length;
    char qmgr[MQ_Q_MGR_NAME_LENGTH + 1] = "";
    char buffer[101];
    int count = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: sget QUEUE [QMGR]\n");
        return 99;
    }
    if (argc > 2)
        strncpy(qmgr, argv[2], MQ_Q_MGR_NAME_LENGTH);
    MQCONN(qmgr, &hcon, &cc, &reason);
    if (cc == MQCC_FAILED)
        return (int)reason;
    strncpy(od.ObjectName, argv[1], MQ_Q_NAME_LENGTH);
    MQOPEN(hcon, &od, MQOO_INPUT_AS_Q_DEF | MQOO_FAIL_IF_QUIESCING, &hobj, &cc, &reason);
    if (cc == MQCC_FAILED)
        return (int)reason;
    gmo.Version = MQGMO_VERSION_2;
    gmo.MatchOptions = MQMO_NONE;
    gmo.Options = MQGMO_NO_WAIT | MQGMO_NO_SYNCPOINT | MQGMO_ACCEPT_TRUNCATED_MSG;
    for (;;) {
        MQMD md = {MQMD_DEFAULT};
        MQGET(hcon, hobj, &md, &gmo, sizeof buffer - 1, buffer, &length, &cc, &reason);
        if (reason == MQRC_NO_MSG_AVAILABLE)
            break;
        if (cc == MQCC_FAILED) {
            printf("MQGET ended with reason code %d\n", (int)reason);
            break;
        }
        if (length > (MQLONG)sizeof buffer - 1)
            length = sizeof buffer - 1;
        buffer[length] = '\0';
        printf("message <%s>\n", buffer);
        count++;
    }
    MQCLOSE(hcon, &hobj, MQCO_NONE, &cc, &reason);
    MQDISC(&hcon, &cc, &reason);
    return count > 0 ? 0 : 2;
}
