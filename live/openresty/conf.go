package openresty

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"ratebench/live/nginx"
)

// Modules are the dynamic modules nginx loads for Lua, where Debian's
// libnginx-mod-http-ndk and libnginx-mod-http-lua install them (the
// development kit first: the Lua module needs it).
var Modules = []string{
	"/usr/lib/nginx/modules/ndk_http_module.so",
	"/usr/lib/nginx/modules/ngx_http_lua_module.so",
}

// Dict is the lua_shared_dict the limiter keeps its keys in.
const Dict = "ratebench"

// KeyHeader carries the trace's key; NowHeader the ngx.now() the module
// read, as a double written exactly.
const (
	KeyHeader = "X-Ratebench-Key"
	NowHeader = "X-Ratebench-Now"
)

// Setup is what the started nginx runs: the module ("req" or "count")
// and new's two numbers after the dict (req: rate and burst; count: limit
// and window), as Lua reads them, and the dict's size.
type Setup struct {
	Module    string
	A, B      float64
	DictBytes int64
}

// luaNumber writes v so that Lua reads the same double.
func luaNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ConfFile returns the nginx.conf for a server on host:port whose files
// are in dir: the Lua modules loaded, one process, the shared dict, the
// limiter made once (init_by_lua) from dir/lua (the module's files and
// the handler, ratebench_limit.lua), and two locations: /config answers
// what the limiter keeps, /decide a request (ratebench_limit.lua).
func ConfFile(dir, host string, port int, s Setup) string {
	var b strings.Builder
	for _, m := range Modules {
		fmt.Fprintf(&b, "load_module %s;\n", m)
	}
	q := func(name string) string { return strconv.Quote(filepath.Join(dir, name)) }
	fmt.Fprintf(&b, `# Written by ratebench live lua-resty-limit-traffic.
master_process off;
daemon off;
worker_processes 1;
pid %s;
error_log %s warn;
events {
    worker_connections 64;
}
http {
    access_log off;
%s    keepalive_requests 100000000;
    keepalive_timeout 600s;
    lua_package_path %s;
    lua_shared_dict %s %dk;
    init_by_lua_block {
        require("ratebench_limit").init(%q, %q, %s, %s)
    }
    server {
        listen %s;
        location = /config {
            content_by_lua_block { require("ratebench_limit").config() }
        }
        location = /decide {
            content_by_lua_block { require("ratebench_limit").decide() }
        }
    }
}
`, q("nginx.pid"), q("error.log"), nginx.TempPaths(dir), strconv.Quote(filepath.Join(dir, "lua", "?.lua")+";;"),
		Dict, (max(s.DictBytes, 1<<20)+1023)/1024, s.Module, Dict, luaNumber(s.A), luaNumber(s.B),
		net.JoinHostPort(host, strconv.Itoa(port)))
	return b.String()
}
