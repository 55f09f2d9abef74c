package summary

// The content of live.json: what a live replay through a program's real
// software (ratebench live TARGET: nginx, HAProxy, varnish, a library in
// its own runtime, a product's script in a redis-server) measured. The
// replay itself is package live's; the report shows a folder's live.json
// beside a comparison's figures.

// LiveSchemaVersion is the version of live.json's layout: 2 since every
// target's replay, nginx's and the Redis scripts' included, is written in
// this one.
const LiveSchemaVersion = 2

// Live is what a live replay measured. Everything but Timing is the same
// from run to run when the software's clock is driven by the trace and
// one client sends the requests; on its own clock the decisions depend on
// when the software saw each request (its model fed the times it decided
// at still agrees), and with several clients on the order it decided them
// in. Timing is kept apart (jq 'del(.timing)').
type Live struct {
	Schema int `json:"schema"`
	// Target names what ran as `ratebench live` does, TARGET[:VARIANT],
	// and Software the software and version that ran.
	Target   string    `json:"target"`
	Software string    `json:"software"`
	Trace    LiveTrace `json:"trace"`
	Rule     string    `json:"rule"`
	// Clock is "driven" when the software read the trace's times, or
	// "real" when it ran on its own clock, replayed at Speed.
	Clock string `json:"clock"`
	Speed string `json:"speed,omitempty"`
	// Clients is the number of clients that sent the requests at once.
	Clients int `json:"clients"`
	// Setup is what the software was configured with beyond the rule, in
	// its own terms (nginx: rate=90r/s, burst=2, nodelay).
	Setup []string `json:"setup,omitempty"`
	// ModelSpec is the model the software is set beside, for the rule
	// the software was configured with (ModelRule: the rule at Speed).
	ModelSpec string `json:"model_spec"`
	ModelRule string `json:"model_rule"`
	// Admitted and Refused count the software's answers.
	Admitted int64 `json:"admitted"`
	Refused  int64 `json:"refused"`
	// Model sets the software beside its model fed the times it decided
	// at, in the order it decided; Views beside its model fed other
	// clocks the software reports (nginx's $msec, the wall clock);
	// Intended beside its model on the trace's own times (scaled), only
	// for software on its own clock; Log beside the exact sliding-window
	// log with the trace's rule on its times.
	Model    LiveAgreement   `json:"model"`
	Views    []LiveAgreement `json:"views,omitempty"`
	Intended *LiveAgreement  `json:"intended,omitempty"`
	Log      LiveAgreement   `json:"log"`
	// Differences lists the first requests the software and its model
	// decide differently (at most MaxLiveDifferences).
	Differences []LiveDifference `json:"differences,omitempty"`
	// DecisionClock is how the client's times and the clock the software
	// decided on relate, where the replay reconstructs that clock
	// (nginx's).
	DecisionClock *LiveClock `json:"decision_clock,omitempty"`
	// Memory is what the software's state holds after the replay (the
	// Redis scripts' keys).
	Memory *LiveMemory `json:"memory,omitempty"`
	// Notes are the warnings the replay calls for.
	Notes  []string   `json:"notes,omitempty"`
	Timing LiveTiming `json:"timing"`
}

// MaxLiveDifferences bounds Live.Differences.
const MaxLiveDifferences = 20

// LiveTrace describes the replayed trace.
type LiveTrace struct {
	Path     string `json:"path"`
	Format   string `json:"format"`
	Requests int64  `json:"requests"`
	Keys     int    `json:"keys"`
	FirstNS  int64  `json:"first_ns"`
	LastNS   int64  `json:"last_ns"`
}

// LiveAgreement compares the software's answers with another decider's.
type LiveAgreement struct {
	Against string `json:"against"`
	Times   string `json:"times"`
	Agree   int64  `json:"agree"`
	// SoftwareOnly counts requests the software admitted and the other
	// refused; OtherOnly the reverse.
	SoftwareOnly int64       `json:"software_only"`
	OtherOnly    int64       `json:"other_only"`
	Classes      []LiveClass `json:"classes,omitempty"`
}

// Disagree is the number of requests decided differently.
func (a LiveAgreement) Disagree() int64 { return a.SoftwareOnly + a.OtherOnly }

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

// Add counts request i (0-based) in the class.
func (c *LiveClass) Add(i int) {
	if c.Count++; c.Count == 1 {
		c.First = i + 1
	}
}

// NonEmptyClasses returns the classes that explain some request, in order.
func NonEmptyClasses(cs ...LiveClass) []LiveClass {
	var out []LiveClass
	for _, c := range cs {
		if c.Count > 0 {
			out = append(out, c)
		}
	}
	return out
}

// LiveDifference is one request decided differently by the software and
// its model: its place in the trace (1-based), its key as the software saw
// it, its trace time and the time the software decided at (ns), and both
// decisions.
type LiveDifference struct {
	Request  int    `json:"request"`
	Key      string `json:"key"`
	TraceNS  int64  `json:"trace_ns"`
	AtNS     int64  `json:"at_ns"`
	Software bool   `json:"software_admits"`
	Model    bool   `json:"model_admits"`
}

// LiveClock tells how the client's times and the clock the software
// decided on relate, where the replay reconstructs that clock.
type LiveClock struct {
	// OutsideBracket counts requests whose decision time, as the
	// software's clock gives it, falls outside the whole milliseconds
	// between the client's send and its receipt of the answer.
	OutsideBracket int64 `json:"outside_bracket"`
	// Reordered counts requests that the software decided in another
	// order than the trace's, within their key.
	Reordered int64 `json:"reordered"`
	// Moved counts requests whose gap to their key's previous request, in
	// the software's clock, is not the gap in the trace's scaled times
	// (whole ms).
	Moved int64 `json:"moved"`
	// Connections is the number of connections the software saw.
	Connections int `json:"connections"`
}

// LiveTiming is what the replay's pace and latency were; it varies from
// run to run.
type LiveTiming struct {
	// DurationNS is from the first request sent to the last answer.
	DurationNS int64 `json:"duration_ns"`
	// RequestedPerS is the rate the trace asks for at the speed (requests
	// per second between the first and last; 0 when the clock is
	// driven: then the requests go as fast as they are answered);
	// AchievedPerS the rate sent.
	RequestedPerS float64 `json:"requested_per_s"`
	AchievedPerS  float64 `json:"achieved_per_s"`
	// Late is how late each request was sent against its due time (on
	// its own clock only).
	Late DurationSummary `json:"late"`
	// Latency is from sending a request to its answer, as its client
	// sees it.
	Latency DurationSummary `json:"latency"`
}

// LiveMemory is the Redis memory the replay's keys hold after it, before
// any expires: MEMORY USAGE key SAMPLES 0 (every element counted, key name
// and object overhead included) on the keys SCAN finds, beside the
// harness's analytic model (algorithms.Limiter.Bytes).
type LiveMemory struct {
	// RedisKeys is the number of keys the replay left (SCAN). Window keys
	// of past windows are still there: their TTL runs on the server's
	// clock, and a replay is faster than its trace.
	RedisKeys int64 `json:"redis_keys"`
	// SampledKeys were measured: all when there are at most a sample's
	// size, else that many evenly spaced in the sorted key names
	// (deterministic).
	SampledKeys int `json:"sampled_keys"`
	// BytesPerKey is the mean MEMORY USAGE of the sampled keys.
	BytesPerKey float64 `json:"bytes_per_key"`
	// KeyNameBytes is the mean length of their names (counted in
	// BytesPerKey; the harness's names carry a replay's namespace).
	KeyNameBytes float64        `json:"key_name_bytes"`
	Encodings    []LiveEncoding `json:"encodings"`
	// KeysPerClient is the number of keys a deployment keeps per client:
	// 2 for the counters (current and previous window), 1 otherwise.
	KeysPerClient int `json:"keys_per_client"`
	// BytesPerClient = BytesPerKey * KeysPerClient: the Redis memory of
	// one client's state.
	BytesPerClient float64 `json:"bytes_per_client"`
	// ModelBytesPerClient is the analytic size of one client's state,
	// limiter.Bytes(id) (for the log, the mean over the clients whose log
	// is not empty at the end, as Redis deletes an empty sorted set).
	ModelBytesPerClient float64 `json:"model_bytes_per_client"`
	// Entries (log and tyk) is the number of sorted-set entries in the
	// sampled keys (ZCARD), BytesPerEntry their MEMORY USAGE divided by
	// it (key overhead included), ModelBytesPerEntry the analytic 8 bytes
	// (a timestamp) and ModelEntries the entries the in-process log holds.
	Entries            int64   `json:"entries,omitempty"`
	BytesPerEntry      float64 `json:"bytes_per_entry,omitempty"`
	ModelEntries       int64   `json:"model_entries,omitempty"`
	ModelBytesPerEntry float64 `json:"model_bytes_per_entry,omitempty"`
	// MemberBytes (log and tyk) is the mean length of the members added,
	// the log's "<rebased time>:<index in the trace>", tyk's the
	// request's time in ns since the epoch: Redis keeps each member as a
	// string, so its length is part of the bytes per entry.
	MemberBytes float64 `json:"member_bytes,omitempty"`
	// ZsetMaxListpackEntries is the server's zset-max-listpack-entries
	// (or zset-max-ziplist-entries): sorted sets longer than this use the
	// skiplist encoding, whose bytes per entry differ.
	ZsetMaxListpackEntries int64 `json:"zset_max_listpack_entries"`
}

// LiveEncoding is the memory of the sampled keys of one Redis encoding
// (OBJECT ENCODING: listpack, skiplist, int, embstr, ...).
type LiveEncoding struct {
	Encoding    string  `json:"encoding"`
	Keys        int     `json:"keys"`
	Bytes       int64   `json:"bytes"`
	BytesPerKey float64 `json:"bytes_per_key"`
	// Entries and BytesPerEntry: sorted sets only.
	Entries       int64   `json:"entries,omitempty"`
	BytesPerEntry float64 `json:"bytes_per_entry,omitempty"`
	// MarginalBytesPerEntry is the least-squares slope of MEMORY USAGE
	// against ZCARD over the keys of this encoding: the cost of one more
	// entry, without the key's fixed overhead. Absent when fewer than two
	// distinct lengths were sampled.
	MarginalBytesPerEntry *float64 `json:"marginal_bytes_per_entry,omitempty"`
}
