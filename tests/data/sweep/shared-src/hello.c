#include <stdio.h>

int main(void)
{
	puts("hello from the sweep test catalogue");
	return 0;
}
