/* mdtime.c - the MQMD's times: the clock, PutDate and PutTime, SET_ALL_CONTEXT's put time
 * and MQGET's Expiry (see mdlayout.h; md_now_us in mdpath.h)
 */
#include "mdlayout.h"

#include <string.h>
#include <time.h>

int64_t md_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Python's bytes.strip() of the n bytes at p: the first and the length of what is left. */
static const char *strip(const char *p, Py_ssize_t *n)
{
    while (*n > 0 && md_is_space(p[0])) {
        p++;
        (*n)--;
    }
    while (*n > 0 && md_is_space(p[*n - 1]))
        (*n)--;
    return p;
}

/* 1: the n bytes at p are decimal digits; their value in *v. */
static int digits(const char *p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        *v = *v * 10 + (p[i] - '0');
    }
    return 1;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* MQPMO_SET_ALL_CONTEXT's put time from the MD's PutDate and PutTime, as the full path
 * reads them (tpfemu/qmgr/mqmd.py, time_from): 1 with *us (0: now, the date blank); 0
 * for anything but a plain date and time (8 digits of a date from 1970 on, 0, 6 or 8
 * digits of a time, each part in range), which the full path reads. */
int md_put_time_of(const char *date, Py_ssize_t dn, const char *clock, Py_ssize_t cn,
                   int64_t *us)
{
    date = strip(date, &dn);
    clock = strip(clock, &cn);
    *us = 0;
    if (dn == 0)
        return 1;
    int y, mo, d, h = 0, mi = 0, sec = 0, hs = 0;
    if (dn != 8 || !digits(date, 4, &y) || !digits(date + 4, 2, &mo) ||
        !digits(date + 6, 2, &d) || (cn != 0 && cn != 6 && cn != 8))
        return 0;
    if (cn >= 6 && (!digits(clock, 2, &h) || !digits(clock + 2, 2, &mi) ||
                    !digits(clock + 4, 2, &sec)))
        return 0;
    if (cn == 8 && !digits(clock + 6, 2, &hs))
        return 0;
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
        (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || sec > 59)
        return 0;
    int64_t seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    *us = seconds * 1000000 + (int64_t)hs * 10000;
    return 1;
}

/* PutDate and PutTime (8 characters each, GMT) of a time in microseconds: 0, or -1
 * with OverflowError. The last hundredth's are kept (every caller holds the GIL). */
int md_format_date_time(int64_t us, char *d, char *c)
{
    static int64_t tick = -1;
    static char date[8], clock[8];
    int64_t t = us / 10000;
    if (t != tick) {
        time_t seconds = (time_t)(t / 100);
        struct tm tm;
        if (gmtime_r(&seconds, &tm) == NULL || tm.tm_year < -1900 ||
            tm.tm_year > 9999 - 1900) {
            PyErr_SetString(PyExc_OverflowError, "put time out of range");
            return -1;
        }
        char dd[48], cc[48];
        snprintf(dd, sizeof dd, "%04d%02d%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
        snprintf(cc, sizeof cc, "%02d%02d%02d%02d", tm.tm_hour, tm.tm_min, tm.tm_sec,
                 (int)(t % 100));
        memcpy(date, dd, 8);
        memcpy(clock, cc, 8);
        tick = t;
    }
    memcpy(d, date, 8);
    memcpy(c, clock, 8);
    return 0;
}

/* An MQGET's Expiry: the time left of a message with deadline `expiry`, in tenths of a
 * second rounded up, at least 1 (MQEI_UNLIMITED: it never expires). */
long md_time_left(int64_t expiry, int64_t now)
{
    if (expiry == TPF_MQ_NEVER)
        return MQEI_UNLIMITED;
    int64_t us = expiry - now;
    int64_t tenths = us > 0 ? (us + 99999) / 100000 : 0;
    return tenths < 1 ? 1 : tenths > INT32_MAX ? INT32_MAX : (long)tenths;
}
