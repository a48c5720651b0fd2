/* Debian control data (the output of dpkg-deb -f of a downloaded .deb, dpkg status files)
 * and relationship fields.  Every field of every stanza is also parsed as a relation. */
#include <string.h>

#include "core/debian/deb.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = malloc(size ? size : 1);
	memcpy(t, data, size);
	struct hk_deb_stanza *st = NULL;
	size_t n = 0;
	struct hk_error err;
	if (hk_deb_parse_control(t, size, "control", &st, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++) {
			for (size_t k = 0; k < st[i].n; k++) {
				struct hk_deb_rel_group *g = NULL;
				size_t ng = 0;
				if (hk_deb_parse_relations(st[i].fields[k].value, st[i].fields[k].name, &g,
							   &ng, &err) == 0)
					hk_deb_relations_free(g, ng);
			}
			(void)hk_deb_field(&st[i], "Depends");
		}
		hk_deb_stanzas_free(st, n);
	}
	/* The whole input as one relation field (it is a C string to that parser). */
	char *z = malloc(size + 1);
	memcpy(z, data, size);
	z[size] = '\0';
	struct hk_deb_rel_group *g = NULL;
	size_t ng = 0;
	if (hk_deb_parse_relations(z, "Depends", &g, &ng, &err) == 0)
		hk_deb_relations_free(g, ng);
	free(z);
	free(t);
	return 0;
}
