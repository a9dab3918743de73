/* cumemlab: entry point (being built). */
#include <stdio.h>

int main(void)
{
    puts("cumemlab");
    return 0;
}
