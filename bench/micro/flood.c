/* Raises denials at a steady rate: opens PATH (which the policy leaves out) COUNT times, paced
 * to RATE opens per second (0: as fast as possible).  Statically linked by bench/run so that
 * `harkaq run` grants it as a single file.  Exits 0 when every open was denied with EACCES
 * (a granted PATH would measure nothing), 1 otherwise; prints the achieved rate.
 *
 *   flood PATH COUNT RATE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: flood PATH COUNT RATE\n");
		return 64;
	}
	long count = atol(argv[2]);
	double rate = atof(argv[3]);
	long denied = 0;
	double t0 = now_s();
	for (long i = 0; i < count; i++) {
		if (rate > 0) {
			/* Busy-wait to the schedule: sleeping would batch the denials into bursts. */
			double due = t0 + (double)i / rate;
			while (now_s() < due)
				;
		}
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		else if (errno == EACCES)
			denied++;
	}
	double dt = now_s() - t0;
	fprintf(stderr, "flood: %ld of %ld opens denied in %.3f s (%.0f/s)\n", denied, count, dt,
		(double)count / dt);
	return denied == count ? 0 : 1;
}
