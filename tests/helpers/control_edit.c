/* The control-file editor (src/core/debian/control_edit.h) on a file, for the test that holds
 * its output against the real wrap-and-sort (tests/integration/control_layout.sh):
 *
 *   control_edit FILE add|drop FIELD ITEM [add|drop FIELD ITEM]...
 *
 * Writes the edited file in place, and the layout it read on stdout ("-ast sorted
 * wrap-and-sort"); exit 1 with the message when the editor refuses. */
#include <stdio.h>
#include <string.h>

#include "core/basic/buf.h"
#include "core/basic/file.h"
#include "core/debian/control_edit.h"

int main(int argc, char **argv)
{
	if (argc < 5 || (argc - 2) % 3 != 0) {
		fprintf(stderr, "usage: control_edit FILE add|drop FIELD ITEM...\n");
		return 64;
	}
	struct hk_error err = { 0 };
	struct hk_buf text = HK_BUF_INIT, out = HK_BUF_INIT;
	if (hk_file_read(argv[1], &text, &err) < 0) {
		fprintf(stderr, "control_edit: %s\n", err.msg);
		return 1;
	}
	struct hk_control_change ch[16];
	size_t n = 0;
	for (int i = 2; i + 2 < argc && n < 16; i += 3)
		ch[n++] = (struct hk_control_change){
			strcmp(argv[i], "drop") == 0 ? HK_CONTROL_DROP : HK_CONTROL_ADD, argv[i + 1],
			argv[i + 2] };
	struct hk_control_layout l;
	if (hk_control_edit(hk_buf_str(&text), text.len, argv[1], ch, n, &out, &l, &err) < 0 ||
	    hk_file_write_atomic(argv[1], out.data, out.len, 0644, &err) < 0) {
		fprintf(stderr, "control_edit: %s\n", err.msg);
		return 1;
	}
	char opts[8];
	hk_control_layout_options(&l, opts);
	printf("%s %s%s\n", *opts ? opts : "-", hk_control_order_name(l.order),
	       l.wrap_and_sort ? " wrap-and-sort" : "");
	hk_buf_free(&text);
	hk_buf_free(&out);
	return 0;
}
