#ifndef CAIRN_CLMDB_SHIM_H
#define CAIRN_CLMDB_SHIM_H

#include <lmdb.h>

#endif
