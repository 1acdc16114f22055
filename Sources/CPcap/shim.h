#ifndef SQUALL_CPCAP_SHIM_H
#define SQUALL_CPCAP_SHIM_H
#include <pcap/pcap.h>
#endif
