/* harkaq store export / import (store_bundle.c): bundles of artifacts, core/bundle.h. */
#ifndef HK_ENGINE_STORE_BUNDLE_H
#define HK_ENGINE_STORE_BUNDLE_H

/* argv[0] is "export" or "import"; returns the exit status. */
int store_bundle_cmd(const char *store_dir, int argc, char **argv);

#endif
