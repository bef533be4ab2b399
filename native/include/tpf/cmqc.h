/* tpf/cmqc.h - the MQI as TPF programs include it (`#include <tpf/cmqc.h>`): the same
 * header as <cmqc.h>. */
#ifndef TPF_TPF_CMQC_H
#define TPF_TPF_CMQC_H
#include "../cmqc.h"
#endif
