/*
 * ampitrace-raw DIR: the OTF2 archive DIR/traces.otf2 made from the raw
 * files a +trace job left under DIR/raw when it did not end normally
 * (docs/tracing.md).  ampitrace runs it when DIR has raw files and no
 * archive; it can be run by hand.
 */
#include "base/base.h"
#include "trace/raw.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: ampitrace-raw DIR (the +trace directory of "
                        "a job that did not end normally)\n");
        return 2;
    }
    if (amp_trace_convert_dir(argv[1]) != AMP_OK)
        return 1;
    printf("ampitrace-raw: wrote %s/traces.otf2\n", argv[1]);
    return 0;
}
