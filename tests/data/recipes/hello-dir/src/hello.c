#include <stdio.h>

int main(void)
{
	puts("hello from a harkaq recipe");
	return 0;
}
