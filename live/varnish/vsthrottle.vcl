vcl 4.1;

# ratebench's live replay of vsthrottle: every request names its key in
# the X-Key header and is answered 200 (admitted) or 429 (refused) by
# vsthrottle.is_denied(key, {{.Args}}), no backend involved.
#
# The clock probe: a bucket of its own ("~clock", limit 1) is blocked once
# for 100000 s by GET /clock; from then on vsthrottle.blocked() on it
# returns the block's end less VTIM_mono(), so that X-Before and X-After,
# read just before and just after is_denied, give the vmod's own clock in
# nanoseconds (counting down) around its decision.

import std;
import vsthrottle;

backend default none;

sub vcl_recv {
	if (req.url == "/clock") {
		if (!vsthrottle.is_denied("~clock", 1, 100000s, 100000s)) {
			if (vsthrottle.is_denied("~clock", 1, 100000s, 100000s)) {
			}
		}
		set req.http.X-Before = std.integer(duration = vsthrottle.blocked("~clock", 1, 100000s, 100000s) * 1000000000, fallback = -1);
		return (synth(204));
	}
	set req.http.X-Before = std.integer(duration = vsthrottle.blocked("~clock", 1, 100000s, 100000s) * 1000000000, fallback = -1);
	if (vsthrottle.is_denied(req.http.X-Key, {{.Args}})) {
		set req.http.X-After = std.integer(duration = vsthrottle.blocked("~clock", 1, 100000s, 100000s) * 1000000000, fallback = -1);
		return (synth(429));
	}
	set req.http.X-After = std.integer(duration = vsthrottle.blocked("~clock", 1, 100000s, 100000s) * 1000000000, fallback = -1);
	return (synth(200));
}

sub vcl_synth {
	set resp.http.X-Before = req.http.X-Before;
	set resp.http.X-After = req.http.X-After;
	set resp.body = "";
	return (deliver);
}
