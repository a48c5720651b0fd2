#include "core/formats/abi_tier.h"

#include <string.h>

static const char *const tier_names[] = {
	[HK_TIER_NONE] = "none",
	[HK_TIER_ENFORCE] = "enforce",
	[HK_TIER_EVIDENCE] = "evidence",
};

enum hk_tier hk_tier_of_abi(int abi)
{
	if (abi < HK_ABI_ENFORCE)
		return HK_TIER_NONE;
	return abi < HK_ABI_EVIDENCE ? HK_TIER_ENFORCE : HK_TIER_EVIDENCE;
}

const char *hk_tier_name(enum hk_tier t)
{
	return (unsigned)t < sizeof(tier_names) / sizeof(tier_names[0]) ? tier_names[t] : "?";
}

bool hk_tier_from_name(const char *name, enum hk_tier *out)
{
	for (unsigned t = 0; name && t < sizeof(tier_names) / sizeof(tier_names[0]); t++) {
		if (strcmp(name, tier_names[t]) == 0) {
			*out = (enum hk_tier)t;
			return true;
		}
	}
	return false;
}
