/*
 * budget.c - the memory a run may use by default.
 */
#include <unistd.h>
#include "base/services.h"

double san_default_max_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    double phys = pages > 0 && size > 0 ? (double)pages * size : 8.0 * (1 << 30);
    return 0.8 * phys;
}

double base_budget(double max_memory)
{
    return max_memory > 0 ? max_memory : san_default_max_memory();
}
