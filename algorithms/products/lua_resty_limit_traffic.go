package products

import (
	"fmt"
	"strings"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "lua-resty-limit-traffic[:module=req|count][:zone]", Place: 37, About: "OpenResty's lua-resty-limit-traffic (in Kong and APISIX): resty.limit.req, nginx's leaky bucket ported to Lua doubles on ngx.now()'s milliseconds (rate L/W per second, burst L-1), or resty.limit.count, a fixed window from the key's first request in a shared dict (incr with init and ttl W), every request counted, refused once the count exceeds L; zone (count) models the dict's expiry of the least recently used nodes, which couples keys",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewLuaResty(r, c.Arg, c.HasArg)
		}})
}

// The source both modules are modelled from: openresty/lua-resty-limit-
// traffic at commit 26a3fb430b6cccccaebc95da607a32caaa1c86f5 ("bumped to
// version v0.09"; the files are the v0.09 tag's but for _VERSION, and
// unchanged since), lib/resty/limit/req.lua and count.lua (line numbers in
// LuaRestyReq's and LuaRestyCount's docs are theirs), run by
// lua-nginx-module v0.10.23 (5592eed30ed45dc64c647df0d1d512f47e7269ed,
// Debian's libnginx-mod-http-lua 0.10.23) with lua-resty-core 0.1.25.
const luaRestyName = "lua-resty-limit-traffic"

// luaRestyMaxL bounds L: the burst L-1 times 1000 stays an exact double
// and far inside int64, as nginx's bound on its parameters.
const luaRestyMaxL = nginxMaxParam + 1

// NewLuaResty returns lua-resty-limit-traffic's resty.limit.req (the
// default, module=req) or resty.limit.count (module=count, with zone the
// shared dict's expiry of its least recently used nodes) for rule r, from
// the spec's parameters (arg, what follows "lua-resty-limit-traffic:").
func NewLuaResty(r algorithms.Rule, arg string, hasArg bool) (algorithms.Limiter, error) {
	module, zone := "req", false
	if hasArg {
		seen := map[string]bool{}
		for _, kv := range strings.Split(arg, ":") {
			kv = strings.TrimSpace(kv)
			k, v, _ := strings.Cut(kv, "=")
			switch {
			case seen[k]:
			case k == "module" && (v == "req" || v == "count"):
				module, seen[k] = v, true
				continue
			case kv == "zone":
				zone, seen[k] = true, true
				continue
			}
			return nil, fmt.Errorf("algorithm %q: want %s[:module=req|count][:zone], each at most once (zone with module=count)", luaRestyName+":"+arg, luaRestyName)
		}
	}
	if r.L > luaRestyMaxL {
		return nil, fmt.Errorf("algorithm %s: rule %s: the limit is too large (at most %d)", luaRestyName, r, int64(luaRestyMaxL))
	}
	if module == "req" {
		if zone {
			return nil, fmt.Errorf("algorithm %q: zone is the count module's (resty.limit.req stores its records with no expiry): give module=count:zone", luaRestyName+":"+arg)
		}
		return NewLuaRestyReq(r), nil
	}
	return NewLuaRestyCount(r, zone)
}
