package main

// The programs whose real software ratebench live replays through, each
// registering its targets with package live.
import (
	_ "ratebench/live/haproxy"
	_ "ratebench/live/nginx"
	_ "ratebench/live/node"
	_ "ratebench/live/openresty"
	_ "ratebench/live/php"
	_ "ratebench/live/python"
	_ "ratebench/live/redis"
	_ "ratebench/live/ruby"
	_ "ratebench/live/varnish"
)
