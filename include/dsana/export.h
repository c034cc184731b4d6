/*
 * export.h - DSANA_API, the mark of a function libdsana exports. The
 * library is built with -fvisibility=hidden: only what a public header
 * marks with DSANA_API is in libdsana.so's dynamic symbol table (every such
 * name starts with dsana_; a test lists them). Included by every public
 * header; needs nothing outside include/.
 */
#ifndef DSANA_EXPORT_H
#define DSANA_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define DSANA_API __attribute__((visibility("default")))
#else
#define DSANA_API
#endif

#endif
