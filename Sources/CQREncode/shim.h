#ifndef SQUALL_CQRENCODE_SHIM_H
#define SQUALL_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
