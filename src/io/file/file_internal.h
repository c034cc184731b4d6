/*
 * file_internal.h - private glue between the io layer's file plumbing and
 * the readers and writers above it: the error-message helper every io
 * function fails through, whole-file mappings shared within a process
 * (mapshare.c), in-memory sources registered by name (mem_source.c), and
 * the plain-or-gzip byte source under dsana_infile and the text readers
 * (infile_src.c). Knows no graph or dataset format. Nothing here is visible
 * outside src/io.
 */
#ifndef DSANA_IO_FILE_INTERNAL_H
#define DSANA_IO_FILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

/* Format one line into err (if err and errlen) and return code (errf.c). */
int io_errf(char *err, size_t errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* mapshare.c: path mapped whole and read-only, shared with this process's
 * other users of the same file; a regular file of at least min_size bytes
 * (else DSANA_EIO / DSANA_EFORMAT naming it; a short file's message says
 * its header needs header_bytes, the current version's). *size its bytes.
 * Release with io_unmap_shared (the last user unmaps). */
int io_map_shared(const char *path, uint64_t min_size, uint64_t header_bytes, void **map, uint64_t *size, char *err,
                  size_t errlen);
void io_unmap_shared(void *map, size_t len);
/* Whether this process already checked the body of the file that map
 * (from io_map_shared) is a mapping of, and recording that it has: a file
 * (device, inode, size, modification time, and tag: a checksum of its
 * header, so a file rewritten in place within one clock tick is not taken
 * for the one checked) is checked once per process, even when it was
 * unmapped in between. */
bool io_map_is_checked(const void *map, uint64_t tag);
void io_map_mark_checked(const void *map, uint64_t tag);

/* mem_source.c: does path name an in-memory source ("dsana-mem:...")? Its
 * data (a struct dsana_graph, dsana_dataset or io_mem_vector by kind), or
 * NULL when no such source of that kind is registered. */
enum io_mem_kind { IO_MEM_GRAPH = 0, IO_MEM_DATASET, IO_MEM_VECTOR };
struct dsana_dataset;
struct io_mem_vector {
  const double *v;
  uint64_t n;
};
bool io_mem_is_name(const char *path);
const void *io_mem_find(const char *path, enum io_mem_kind kind);
/* Whether ds views the arrays of a registered in-memory dataset whose rows
 * were all checked (dsana_dataset_check) against no more features than
 * ds has, since it was registered; and to say they were. Registered data
 * stays unchanged until unregistered (dsana_dataset_mem_register). */
bool io_mem_dataset_checked(const struct dsana_dataset *ds);
void io_mem_dataset_mark_checked(const struct dsana_dataset *ds);

/* The bytes of a plain file, or of a gzip file (starts with 1f 8b)
 * inflated: members one after another, zero padding at the end; any other
 * trailing byte is an error naming its offset (infile_src.c). */
struct infile_src {
  const char *path;
  int fd;
  bool fd_open, gzip, zs_live;
  bool in_eof; /* read() has returned 0 */
  bool end;    /* gzip: the last member and its padding are read */
  z_stream zs; /* next_in/avail_in: the unread input in in (plain files too) */
  unsigned char *in;
  size_t in_cap;
  uint64_t in_off; /* file offset of in[0] */
};
/* Open path; one line "PATH: reason" in err on failure (DSANA_EIO, DSANA_ENOMEM). */
int infile_src_open(struct infile_src *s, const char *path, char *err, size_t errlen);
/* Up to want bytes into buf, *got of them (0 at the end); a negative code
 * with err set on read errors and bad gzip data. */
int infile_src_read(struct infile_src *s, char *buf, size_t want, size_t *got, char *err, size_t errlen);
void infile_src_close(struct infile_src *s);

#endif
