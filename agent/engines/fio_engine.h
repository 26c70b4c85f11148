/* fio_engine.h: fio's own headers as lg's external engines (lgsmb, lgiscsi) include them. fio's
 * headers are GNU C; the build compiles lg as ISO C11 (CMAKE_C_EXTENSIONS OFF), which hides the
 * plain spellings of asm and typeof. */
#ifndef LG_FIO_ENGINE_H
#define LG_FIO_ENGINE_H

#ifndef asm
#define asm __asm__
#endif
#ifndef typeof
#define typeof __typeof__
#endif
/* fio is built with its debug output (--debug=file shows an engine's own messages). */
#ifndef FIO_INC_DEBUG
#define FIO_INC_DEBUG
#endif
#include "fio.h"
#include "optgroup.h"

#endif
