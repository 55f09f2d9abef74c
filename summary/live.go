package summary

// The content of live.json: what a live replay through a real nginx
// (ratebench live nginx) measured, for the report to show beside a
// comparison's figures. The replay itself is package livenginx's.

// LiveSchemaVersion is the version of live.json's layout.
const LiveSchemaVersion = 1

// LiveNginx is what a live replay measured. Trace and Setup are
// deterministic for a given trace and command line; the decisions and
// agreements depend on when nginx saw each request (on a serial replay
// they are the same from run to run when nginx keeps the pace, and the
// agreement with the model fed nginx's own clock always is 100%); Timing
// (rates, lateness, latency) varies from run to run and is kept apart
// (jq 'del(.timing)').
type LiveNginx struct {
	Schema int       `json:"schema"`
	Trace  LiveTrace `json:"trace"`
	Setup  LiveSetup `json:"setup"`
	// Admitted and Refused count nginx's answers, 200 and 429.
	Admitted int64 `json:"admitted"`
	Refused  int64 `json:"refused"`
	// Model sets nginx beside its model fed the clock nginx decided on:
	// ngx_current_msec, from $connection_time.
	Model LiveAgreement `json:"model"`
	// ModelWall sets nginx beside its model fed $msec, the wall clock of
	// the same instant, whose millisecond boundaries are not those of the
	// monotonic clock limit_req reads.
	ModelWall LiveAgreement `json:"model_wall_clock"`
	// Intended sets nginx beside its model fed the trace's own times
	// (scaled by the speed): what a replay that kept the trace's pace to
	// the millisecond would get.
	Intended LiveAgreement `json:"intended"`
	// Log sets nginx beside the exact sliding-window log with the
	// trace's rule on the trace's own times.
	Log LiveAgreement `json:"log"`
	// Clock is how the replay's timing reached nginx.
	Clock  LiveClock  `json:"clock"`
	Timing LiveTiming `json:"timing"`
}

// LiveTrace describes the replayed trace.
type LiveTrace struct {
	Path     string `json:"path"`
	Format   string `json:"format"`
	Requests int64  `json:"requests"`
	Keys     int    `json:"keys"`
	FirstNS  int64  `json:"first_ns"`
	LastNS   int64  `json:"last_ns"`
}

// LiveSetup is the replay's configuration.
type LiveSetup struct {
	Rule    string `json:"rule"`
	Speed   string `json:"speed"`
	Clients int    `json:"clients"`
	// NginxRate and Burst are what nginx was configured with: the rule's
	// rate times the speed, and the burst.
	NginxRate string `json:"nginx_rate"`
	Burst     int64  `json:"burst"`
	NoDelay   bool   `json:"nodelay"`
	Delay     int64  `json:"delay,omitempty"`
	// ModelSpec is the model's spec (algorithms.New).
	ModelSpec string `json:"model_spec"`
	Nginx     string `json:"nginx"`
}

// LiveAgreement compares nginx's answers with another decider's.
type LiveAgreement struct {
	Against string `json:"against"`
	Times   string `json:"times"`
	Agree   int64  `json:"agree"`
	// NginxOnly counts requests nginx admitted and the other refused;
	// OtherOnly the reverse.
	NginxOnly int64       `json:"nginx_only"`
	OtherOnly int64       `json:"other_only"`
	Classes   []LiveClass `json:"classes,omitempty"`
}

// Disagree is the number of requests decided differently.
func (a LiveAgreement) Disagree() int64 { return a.NginxOnly + a.OtherOnly }

// Percent is the agreement in percent.
func (a LiveAgreement) Percent() float64 {
	n := a.Agree + a.Disagree()
	if n == 0 {
		return 100
	}
	return 100 * float64(a.Agree) / float64(n)
}

// LiveClass is one explanation of disagreements: how many it explains and
// the first such request (1-based, in the trace).
type LiveClass struct {
	Name    string `json:"name"`
	Meaning string `json:"meaning"`
	Count   int64  `json:"count"`
	First   int    `json:"first_request"`
}

// LiveClock tells how the client's times and nginx's clock relate.
type LiveClock struct {
	// OutsideBracket counts requests whose decision time, as nginx's
	// clock gives it, falls outside the whole milliseconds between the
	// client's send and its receipt of the answer.
	OutsideBracket int64 `json:"outside_bracket"`
	// Reordered counts requests that nginx decided in another order than
	// the trace's, within their key.
	Reordered int64 `json:"reordered"`
	// Moved counts requests whose gap to their key's previous request, in
	// nginx's clock, is not the gap in the trace's scaled times (whole ms).
	Moved int64 `json:"moved"`
	// NginxConnections is the number of connections nginx saw.
	NginxConnections int `json:"nginx_connections"`
}

// LiveTiming is what the replay's pace and latency were.
type LiveTiming struct {
	DurationNS int64 `json:"duration_ns"`
	// RequestedPerS is the rate the trace asks for, scaled (requests per
	// second between the first and last); AchievedPerS the rate sent.
	RequestedPerS float64 `json:"requested_per_s"`
	AchievedPerS  float64 `json:"achieved_per_s"`
	// Late is how late each request was sent against its due time.
	Late DurationSummary `json:"late"`
	// Latency is from sending a request to reading its answer.
	Latency DurationSummary `json:"latency"`
}
