/*
 * main.c - the dsana executable: the command with the built-in apps,
 * through libdsana's public API only (dsana/launch.h).
 */
#include <stddef.h>

#include "dsana/launch.h"

int main(int argc, char **argv) { return dsana_main(argc, argv, NULL, 0); }
