/* Reading a policy file: the I/O beside core/policy/policy.h's pure parser. */
#ifndef HK_POLICY_FILE_H
#define HK_POLICY_FILE_H

#include "core/basic/error.h"
#include "core/policy/policy.h"

/* Reads the file at `path` and parses it with hk_policy_parse (errors name `path` as FILE). */
HK_MUST_CHECK int hk_policy_load(const char *path, struct hk_policy *out, struct hk_error *err);

#endif
