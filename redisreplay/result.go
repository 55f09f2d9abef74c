package redisreplay

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"ratebench/internal/escape"
)

// SchemaVersion is the version of redis.json's layout.
const SchemaVersion = 1

// Result is what Run measured. Everything but Timing is deterministic for
// a given trace, rule, algorithm list and Redis server version when every
// run has one client; runs with several clients race by design, so their
// counts vary from one replay to the next. Timing (wall-clock throughput
// and latency) is kept apart so that the rest can be compared byte for
// byte (e.g. jq 'del(.timing)').
type Result struct {
	Schema int        `json:"schema"`
	Trace  TraceInfo  `json:"trace"`
	Rule   string     `json:"rule"`
	Server ServerInfo `json:"server"`
	Runs   []Pass     `json:"runs"`
	// Races sets the non-atomic counter beside the atomic counter script at
	// each number of clients both were replayed with.
	Races  []Race   `json:"races,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	Timing Timing   `json:"timing"`
}

// TraceInfo describes the replayed trace.
type TraceInfo struct {
	Path     string `json:"path"`
	Format   string `json:"format"`
	Requests int64  `json:"requests"`
	Keys     int    `json:"keys"`
	FirstNS  int64  `json:"first_ns"`
	LastNS   int64  `json:"last_ns"`
	// BaseNS is subtracted from every time before it reaches Redis: the
	// start of the fixed window holding the first request (see MaxExact).
	BaseNS int64 `json:"base_ns"`
	// CostNot1 counts requests whose cost is not 1.
	CostNot1 int64 `json:"cost_not_1"`
}

// ServerInfo describes the Redis server.
type ServerInfo struct {
	// Started is true when the harness started the server itself (and
	// flushed it between passes); false for a server given by address.
	Started bool `json:"started"`
	// Addr is the address of a server given by the user; empty for a
	// started one (its port is random).
	Addr    string `json:"addr,omitempty"`
	Version string `json:"version"`
	// ZsetMaxListpackEntries is the server's zset-max-listpack-entries (or
	// zset-max-ziplist-entries): sorted sets longer than this use the
	// skiplist encoding, whose bytes per entry differ.
	ZsetMaxListpackEntries int64 `json:"zset_max_listpack_entries"`
}

// Pass is one algorithm replayed with one number of clients.
type Pass struct {
	Algorithm string `json:"algorithm"`
	// Model is the in-process algorithm every decision is compared with,
	// driven in trace order with the same timestamps (independent mode:
	// it records what it admits).
	Model string `json:"model"`
	// Atomic is true for the Lua scripts: one atomic round trip per
	// decision.
	Atomic bool `json:"atomic"`
	// Product is true for a product's own Redis code, compared with its
	// model (see Products).
	Product       bool    `json:"product,omitempty"`
	Clients       int     `json:"clients"`
	Decisions     int64   `json:"decisions"`
	Admitted      int64   `json:"admitted"`
	ModelAdmitted int64   `json:"model_admitted"`
	Agree         int64   `json:"agree"`
	AgreeFraction float64 `json:"agree_fraction"`
	// Over counts requests Redis admitted and the model rejected; Under
	// the reverse.
	Over   int64  `json:"over"`
	Under  int64  `json:"under"`
	Memory Memory `json:"memory"`
}

// Memory is the Redis memory the run's keys hold after the replay, before
// any expires: MEMORY USAGE key SAMPLES 0 (every element counted, key name
// and object overhead included) on the run's keys found by SCAN, beside
// the harness's analytic model (algorithms.Limiter.Bytes).
type Memory struct {
	// RedisKeys is the number of keys the run left (SCAN). Window keys of
	// past windows are still there: their TTL runs on the server's clock,
	// and a replay is faster than its trace.
	RedisKeys int64 `json:"redis_keys"`
	// SampledKeys were measured: all when there are at most
	// Config.MemorySample, else that many evenly spaced in the sorted key
	// names (deterministic).
	SampledKeys int `json:"sampled_keys"`
	// BytesPerKey is the mean MEMORY USAGE of the sampled keys.
	BytesPerKey float64 `json:"bytes_per_key"`
	// KeyNameBytes is the mean length of their names (counted in
	// BytesPerKey; the harness's names carry a run namespace).
	KeyNameBytes float64    `json:"key_name_bytes"`
	Encodings    []Encoding `json:"encodings"`
	// KeysPerClient is the number of keys a deployment keeps per client:
	// 2 for the counters (current and previous window), 1 otherwise.
	KeysPerClient int `json:"keys_per_client"`
	// BytesPerClient = BytesPerKey * KeysPerClient: the Redis memory of one
	// client's state.
	BytesPerClient float64 `json:"bytes_per_client"`
	// ModelBytesPerClient is the analytic size of one client's state,
	// limiter.Bytes(id) (for the log, the mean over the clients whose log
	// is not empty at the end, as Redis deletes an empty sorted set).
	ModelBytesPerClient float64 `json:"model_bytes_per_client"`
	// Entries (log and tyk) is the number of sorted-set entries in the
	// sampled keys (ZCARD), BytesPerEntry their MEMORY USAGE divided by it
	// (key overhead included), ModelBytesPerEntry the analytic 8 bytes (a
	// timestamp) and ModelEntries the entries the in-process log holds.
	Entries            int64   `json:"entries,omitempty"`
	BytesPerEntry      float64 `json:"bytes_per_entry,omitempty"`
	ModelEntries       int64   `json:"model_entries,omitempty"`
	ModelBytesPerEntry float64 `json:"model_bytes_per_entry,omitempty"`
	// MemberBytes (log and tyk) is the mean length of the members added,
	// the log's "<rebased time>:<index in the trace>", tyk's the request's
	// time in ns since the epoch: Redis keeps each member as a
	// string, so its length is part of the bytes per entry.
	MemberBytes float64 `json:"member_bytes,omitempty"`
}

// Encoding is the memory of the sampled keys of one Redis encoding
// (OBJECT ENCODING: listpack, skiplist, int, embstr, ...).
type Encoding struct {
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

// Race compares the non-atomic counter with the atomic counter script on
// the same trace with the same number of clients.
type Race struct {
	Clients   int   `json:"clients"`
	Decisions int64 `json:"decisions"`
	// AtomicAdmitted and NonAtomicAdmitted are the admissions of each;
	// ExtraAdmitted their difference (non-atomic - atomic), ExtraFraction
	// that over Decisions.
	AtomicAdmitted    int64   `json:"atomic_admitted"`
	NonAtomicAdmitted int64   `json:"nonatomic_admitted"`
	ExtraAdmitted     int64   `json:"extra_admitted"`
	ExtraFraction     float64 `json:"extra_fraction"`
	// Disagreements of each with the in-process counter, and how many of
	// them are over-admissions.
	AtomicDisagree    int64 `json:"atomic_disagree"`
	AtomicOver        int64 `json:"atomic_over"`
	NonAtomicDisagree int64 `json:"nonatomic_disagree"`
	NonAtomicOver     int64 `json:"nonatomic_over"`
}

// Timing holds every wall-clock measurement, apart from the deterministic
// results.
type Timing struct {
	// Method says how latencies were sampled.
	Method string       `json:"method"`
	Runs   []PassTiming `json:"runs"`
}

// PassTiming is the speed of one run.
type PassTiming struct {
	Algorithm string `json:"algorithm"`
	Clients   int    `json:"clients"`
	// Seconds is the wall time of the replay, from the first request sent
	// to the last answer; OpsPerSecond = decisions / Seconds.
	Seconds      float64 `json:"seconds"`
	OpsPerSecond float64 `json:"ops_per_second"`
	Latency      Latency `json:"latency"`
	// Live is set for a live replay (redis_rate, on Redis TIME).
	Live *LiveTiming `json:"live,omitempty"`
	// KeyLifeNS (upstash, upstash-fixed, envoy, kong, whose keys live as
	// long as the product says on the server's clock) is the longest a
	// window's key had to live for the replay: from the window's first
	// request to the last that reads the key, as handed to the clients.
	KeyLifeNS int64 `json:"key_life_ns,omitempty"`
}

// LiveTiming is the pace of a live replay: request i is due
// (t_i - t_0)/Speed after the start, under Rule (the rule's window divided
// by Speed); RequestedSeconds is the trace's span divided by Speed, to
// compare with Seconds, and LagMaxNS the latest a request was handed to a
// client after it was due.
type LiveTiming struct {
	Speed            int64   `json:"speed"`
	Rule             string  `json:"rule"`
	TraceSeconds     float64 `json:"trace_seconds"`
	RequestedSeconds float64 `json:"requested_seconds"`
	LagMaxNS         int64   `json:"lag_max_ns"`
}

// Latency is the distribution of the time per decision: from sending the
// request (one script call, or both round trips of the non-atomic counter)
// to its answer, as one client sees it.
type Latency struct {
	Decisions int64 `json:"decisions"`
	// Samples were kept (a uniform reservoir); Exact is true when that is
	// every decision.
	Samples int   `json:"samples"`
	Exact   bool  `json:"exact"`
	P50NS   int64 `json:"p50_ns"`
	P99NS   int64 `json:"p99_ns"`
	MaxNS   int64 `json:"max_ns"`
}

// WriteFiles writes redis.json and redis.md into dir, creating it.
func (r *Result) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "redis.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var md strings.Builder
	if err := r.WriteMarkdown(&md); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "redis.md"), []byte(md.String()), 0o644)
}

// WriteMarkdown writes the result as Markdown tables: decisions, the race,
// timing and memory.
func (r *Result) WriteMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	p := func(format string, a ...any) { fmt.Fprintf(ew, format, a...) }
	r.writeHeader(p)
	r.writeDecisions(p)
	r.writeRaces(p)
	r.writeProducts(p)
	r.writeTiming(p)
	r.writeMemory(p)
	r.writeNotes(p)
	return ew.err
}

// printf writes one formatted piece of the Markdown.
type printf func(format string, a ...any)

// writeHeader writes the title: the rule, the trace and the server.
func (r *Result) writeHeader(p printf) {
	server := "started by the harness"
	if !r.Server.Started {
		server = "at " + escape.Markdown(r.Server.Addr)
	}
	p("# Redis replay, rule %s\n\n", r.Rule)
	p("Trace `%s` (%s): %d requests, %d keys. Redis %s, %s.\n\n", mdCode(r.Trace.Path), escape.Markdown(r.Trace.Format),
		r.Trace.Requests, r.Trace.Keys, escape.Markdown(r.Server.Version), server)
}

// writeDecisions writes every pass's decisions against its model.
func (r *Result) writeDecisions(p printf) {
	p("## Decisions\n\nEach decision is compared with the in-process algorithm driven in trace order with the same timestamps; " +
		"over = Redis admits and the model rejects, under = the reverse.\n\n")
	p("| algorithm | atomic | clients | decisions | admitted | model admitted | agree | agree %% | over | under |\n")
	p("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, run := range r.Runs {
		p("| %s | %s | %d | %d | %d | %d | %d | %s | %d | %d |\n", run.Algorithm, yesNo(run.Atomic), run.Clients,
			run.Decisions, run.Admitted, run.ModelAdmitted, run.Agree, percent(run.AgreeFraction), run.Over, run.Under)
	}
}

// writeRaces writes the non-atomic counter beside the atomic one, if both ran.
func (r *Result) writeRaces(p printf) {
	if len(r.Races) == 0 {
		return
	}
	p("\n## Race: non-atomic counter (read, then increment) vs the atomic counter script\n\n")
	p("Same trace, same number of concurrent clients, same decision rule (the sliding window counter's); extra = admitted non-atomic - admitted atomic.\n\n")
	p("| clients | decisions | atomic admitted | non-atomic admitted | extra | extra %% | atomic disagree (over) | non-atomic disagree (over) |\n")
	p("|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range r.Races {
		p("| %d | %d | %d | %d | %+d | %s | %d (%d) | %d (%d) |\n", x.Clients, x.Decisions, x.AtomicAdmitted, x.NonAtomicAdmitted,
			x.ExtraAdmitted, percent(x.ExtraFraction), x.AtomicDisagree, x.AtomicOver, x.NonAtomicDisagree, x.NonAtomicOver)
	}
}

// writeProducts writes the products against their models, if any ran.
func (r *Result) writeProducts(p printf) {
	if !slices.ContainsFunc(r.Runs, func(x Pass) bool { return x.Product }) {
		return
	}
	p("\n## Products against their models\n\nEach product's own Redis code (its Lua script verbatim, or its commands) against its model; " +
		"beyond = admitted - model admitted. With one client they must agree on every request; with more, what a read-then-increment lets through shows as beyond.\n\n")
	p("| product | model | clients | decisions | admitted | model admitted | beyond | over | under |\n|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range r.Runs {
		if x.Product {
			p("| %s | %s | %d | %d | %d | %d | %+d | %d | %d |\n", x.Algorithm, escape.Markdown(x.Model), x.Clients, x.Decisions, x.Admitted,
				x.ModelAdmitted, x.Admitted-x.ModelAdmitted, x.Over, x.Under)
		}
	}
}

// writeTiming writes each pass's duration and latencies, and the live passes' pace.
func (r *Result) writeTiming(p printf) {
	p("\n## Timing\n\n%s\n\n", r.Timing.Method)
	p("| algorithm | clients | seconds | ops/s | p50 | p99 | max |\n|---|--:|--:|--:|--:|--:|--:|\n")
	for _, t := range r.Timing.Runs {
		p("| %s | %d | %.3f | %.0f | %s | %s | %s |\n", t.Algorithm, t.Clients, t.Seconds, t.OpsPerSecond,
			micros(t.Latency.P50NS), micros(t.Latency.P99NS), micros(t.Latency.MaxNS))
	}

	if slices.ContainsFunc(r.Timing.Runs, func(t PassTiming) bool { return t.Live != nil }) {
		p("\nLive replays (on Redis TIME): request i sent (t_i - t_0)/speed after the start, under the rule's window divided by the speed; " +
			"the model is fed the times the script read, so a late send changes no agreement.\n\n")
		p("| algorithm | clients | speed | rule | trace s | requested s | seconds | latest send |\n|---|--:|--:|---|--:|--:|--:|--:|\n")
		for _, t := range r.Timing.Runs {
			if l := t.Live; l != nil {
				p("| %s | %d | %d | %s | %.3f | %.3f | %.3f | %s |\n", t.Algorithm, t.Clients, l.Speed, l.Rule, l.TraceSeconds,
					l.RequestedSeconds, t.Seconds, micros(l.LagMaxNS))
			}
		}
	}
}

// writeMemory writes each pass's keys' memory beside the analytic model's.
func (r *Result) writeMemory(p printf) {
	p("\n## Memory\n\nMEMORY USAGE key SAMPLES 0 after the replay (key name and object overhead included), " +
		"beside the analytic model (bytes a compact implementation keeps per client).\n\n")
	p("| algorithm | clients | Redis keys | sampled | encodings | bytes/key | keys/client | bytes/client | model bytes/client | entries | bytes/entry | marginal bytes/entry | model bytes/entry |\n")
	p("|---|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, run := range r.Runs {
		m := run.Memory
		var enc []string
		marginal := "-"
		for _, e := range m.Encodings {
			enc = append(enc, fmt.Sprintf("%s %d", e.Encoding, e.Keys))
			if e.MarginalBytesPerEntry != nil {
				if marginal == "-" {
					marginal = ""
				} else {
					marginal += ", "
				}
				marginal += fmt.Sprintf("%.1f (%s)", *e.MarginalBytesPerEntry, e.Encoding)
			}
		}
		entries, perEntry, modelEntry := "-", "-", "-"
		if m.Entries > 0 {
			entries = fmt.Sprintf("%d (member %.1f B)", m.Entries, m.MemberBytes)
			perEntry, modelEntry = fmt.Sprintf("%.1f", m.BytesPerEntry), fmt.Sprintf("%.0f", m.ModelBytesPerEntry)
		}
		p("| %s | %d | %d | %d | %s | %.1f | %d | %.1f | %.1f | %s | %s | %s | %s |\n", run.Algorithm, run.Clients, m.RedisKeys,
			m.SampledKeys, strings.Join(enc, ", "), m.BytesPerKey, m.KeysPerClient, m.BytesPerClient, m.ModelBytesPerClient,
			entries, perEntry, marginal, modelEntry)
	}
}

// writeNotes writes the notes, if any.
func (r *Result) writeNotes(p printf) {
	if len(r.Notes) == 0 {
		return
	}
	p("\n## Notes\n\n")
	for _, n := range r.Notes {
		p("- %s\n", escape.Markdown(n))
	}
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func percent(f float64) string {
	switch {
	case f == 0:
		return "0"
	case f == 1:
		return "100"
	}
	return fmt.Sprintf("%.4f", 100*f)
}

func micros(ns int64) string { return fmt.Sprintf("%.1f µs", float64(ns)/1e3) }

// mdCode prepares text for a code span: no backticks or line breaks.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "\n", " ", "\r", " ").Replace(s)
}
