// glibc's malloc tuning (mallopt), which Swift's Glibc module does not import.
#include <malloc.h>
