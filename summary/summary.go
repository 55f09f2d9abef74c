package summary

import (
	"encoding/json"
	"fmt"
)

// SchemaV1 names the version of the summary.json format that Summary is;
// SchemaV1_1 adds to it trace.ts_unit and trace.ts_unit_from; SchemaV1_2
// writes a run's bound check as token_bound, which versions 1 and 1.1 named
// seed002_bound; SchemaV1_3 adds a product's run its product analysis; SchemaV1_4 adds
// bindings, how much each rule binds on the trace; SchemaV1_5 adds the
// verdict, the answer the runs give; SchemaV1_6 adds trace.records_read,
// how many records the run read; SchemaV1_7 adds trace.dataset, the parts
// of a dataset the run read, and config.reference, a reference behind a
// refusal cache; SchemaV1_8 adds trace.placements and each run's placed,
// the figures of arrivals placed inside a coarse clock's unit. A
// summary names the oldest version that has every field it holds
// (SchemaOf), so that a summary without the fields of a later version stays
// what it was. ReadSummary reads them all, the bound under either name.
const (
	SchemaV1   = "ratebench.summary/v1"
	SchemaV1_1 = "ratebench.summary/v1.1"
	SchemaV1_2 = "ratebench.summary/v1.2"
	SchemaV1_3 = "ratebench.summary/v1.3"
	SchemaV1_4 = "ratebench.summary/v1.4"
	SchemaV1_5 = "ratebench.summary/v1.5"
	SchemaV1_6 = "ratebench.summary/v1.6"
	SchemaV1_7 = "ratebench.summary/v1.7"
	SchemaV1_8 = "ratebench.summary/v1.8"
)

// Schemas are the versions ReadSummary reads, oldest first.
var Schemas = []string{SchemaV1, SchemaV1_1, SchemaV1_2, SchemaV1_3, SchemaV1_4, SchemaV1_5, SchemaV1_6, SchemaV1_7, SchemaV1_8}

// SchemaOf returns the schema s is written in: the oldest version that has
// every field it holds.
func SchemaOf(s *Summary) string {
	if s.Trace.Placements != nil {
		return SchemaV1_8
	}
	if s.Trace.Dataset != nil || s.Config.Reference != "" {
		return SchemaV1_7
	}
	if s.Trace.RecordsRead > 0 {
		return SchemaV1_6
	}
	if s.Verdict != nil {
		return SchemaV1_5
	}
	if len(s.Bindings) > 0 {
		return SchemaV1_4
	}
	for i := range s.Runs {
		if s.Runs[i].Product != nil {
			return SchemaV1_3
		}
	}
	for i := range s.Runs {
		if s.Runs[i].Bound != nil || s.Runs[i].Memory.Windows != nil || s.Runs[i].Memory.TotalNotMeasured {
			return SchemaV1_2
		}
	}
	if s.Trace.TSUnit != "" || s.Trace.TSUnitFrom != "" {
		return SchemaV1_1
	}
	return SchemaV1
}

// Summary is the content of summary.json: what was replayed and, for every
// run (rule × count × mode × algorithm), its metrics. It holds only values
// that the same inputs reproduce exactly, so that the file is byte-identical
// when regenerated; timings live elsewhere (Perf).
type Summary struct {
	Schema string `json:"schema"`
	// Partial is true when the replay was interrupted: the figures cover
	// the Trace.Requests replayed before it stopped.
	Partial bool `json:"partial,omitempty"`
	// Shard is set in the summary of one shard of a replay (-shard i/n):
	// its figures cover only that shard's keys, until Merge combines all.
	Shard  *Shard    `json:"shard,omitempty"`
	Trace  TraceInfo `json:"trace"`
	Config RunConfig `json:"config"`
	// Notes say what a reader of the runs should know, e.g. that the modes
	// coincide under --count all.
	Notes []string `json:"notes,omitempty"`
	// Bindings say, per plain rule and count policy, how much the rule
	// binds on the trace: the log's refusals, the keys refused, the
	// busiest key's peak use and the tighter limits that would bind.
	Bindings []Binding `json:"bindings,omitempty"`
	// Verdict is the answer the runs give under the summary's budget (or
	// the default tolerances): per rule, the choice, the frontier, the
	// priorities' picks and the dominated (VerdictOf).
	Verdict *Verdict `json:"verdict,omitempty"`
	Runs    []Run    `json:"runs"`
	// Clients are the closed-loop replays (-clients): per plain rule,
	// algorithm and retry policy, what clients that re-send what they are
	// refused do to the traffic and what they go through.
	Clients []ClientsResult `json:"clients,omitempty"`
	// Distributed are the simulated distributed deployments (-nodes): per
	// plain rule, window algorithm, number of nodes, sync interval and
	// clock skew, the decisions against the exact global log.
	Distributed []DistributedResult `json:"distributed,omitempty"`
}

// Shard is one of Count disjoint shares of a trace's keys: the keys whose
// key hash is Index modulo Count (traces.KeyHash).
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// TraceInfo describes the replayed trace.
type TraceInfo struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// TSUnit is the unit the trace's timestamps without a unit of their
	// own were read in ("s", "ms", "us" or "ns"; schema 1.1), and
	// TSUnitFrom how it was chosen: "explicit" (-ts-unit), "auto" (from
	// the first timestamp's magnitude) or "file" (a Parquet TIMESTAMP
	// column's). Both are absent where no such timestamp was read: a
	// generated trace, an access log, RFC 3339 times.
	TSUnit     string `json:"ts_unit,omitempty"`
	TSUnitFrom string `json:"ts_unit_from,omitempty"`
	// Fingerprint identifies the content of a trace file (not of a
	// generated trace, nor of one read from a pipe or standard input):
	// "sha256:" and the SHA-256 of its size in bytes (decimal), a newline,
	// its first 64 KiB and its last 64 KiB (not overlapping: a file under
	// 128 KiB is hashed whole); a dataset's, the SHA-256 of the
	// fingerprints of its manifest and of each part, one per line, in
	// order. compare tells by it whether a results
	// folder holds the results of the same trace, whatever path it was
	// given by.
	Fingerprint string `json:"fingerprint,omitempty"`
	Requests    int64  `json:"requests"`
	Cost        int64  `json:"cost"` // total cost of all requests
	// RecordsRead counts the records the replay read (schema 1.6): its
	// keys' requests and, in a shard, the other shards' requests it read
	// past. A shard of a trace read whole reads every record: the merge of
	// the shards counts them once, as one replay of the whole reads them.
	RecordsRead int64 `json:"records_read,omitempty"`
	// Dataset, when the trace is a dataset (a folder of parts split by key
	// hash, ratebench convert -partitions), says which parts the run read
	// (schema 1.7).
	Dataset *DatasetRead `json:"dataset,omitempty"`
	Keys    int64        `json:"keys"`
	StartNS int64        `json:"start_ns"`
	EndNS   int64        `json:"end_ns"`
	// Skipped counts the bad records skipped under --skip-bad, and
	// SkippedExamples gives the first of them; nothing is dropped silently.
	Skipped         int64         `json:"skipped"`
	SkippedExamples []SkipExample `json:"skipped_examples,omitempty"`
	// Input are the flags of how the trace was read, as given (-format,
	// -key, -reorder, -skip-bad, ...; absent when none was): every command
	// the report and the terminal suggest on the trace carries them
	// (Command, InputArgs).
	Input []InputArg `json:"input_args,omitempty"`
	// ResolutionNS is the coarsest unit every timestamp of the trace, as
	// read, is a multiple of: the gcd of the times in ns (1e9 for whole
	// seconds). SameTime counts the requests at the same time as their
	// key's previous request. Spread is set when the requests were spread
	// inside their timestamp's unit before the replay (compare -spread);
	// the two figures are then the trace's as read, before spreading. See
	// resolution.go.
	ResolutionNS int64       `json:"resolution_ns,omitempty"`
	SameTime     int64       `json:"same_time_as_previous,omitempty"`
	Spread       *SpreadInfo `json:"spread,omitempty"`
	// Placements is set when the figures rest on placements of the
	// requests inside their timestamps' unit, the clock being too coarse
	// for a rule: how many, their seed and the recorded clock's replay.
	Placements *Placements `json:"placements,omitempty"`
}

// DatasetRead says which parts of a dataset a run read. A dataset of P
// parts puts each request in part KeyHash(key) mod P: a shard i/n with n
// dividing P reads only the parts j with j mod n = i, which hold all its
// keys and no other's, and so reads and skips only their records; any
// other shard, and a whole replay, reads every part.
type DatasetRead struct {
	Partitions int   `json:"partitions"`
	PartsRead  []int `json:"parts_read"`
}

// SkipExample is one skipped record: where it was and why.
type SkipExample struct {
	Line   int64  `json:"line,omitempty"`
	Row    int64  `json:"row,omitempty"`
	Reason string `json:"reason"`
}

// RunConfig records the experiment grid, in run order.
type RunConfig struct {
	Rules      []string `json:"rules"`
	Counts     []string `json:"counts"`
	Modes      []string `json:"modes"`
	Algorithms []string `json:"algorithms"`
	// Reference, when the reference is not the plain log, is its spec
	// (schema 1.7): "log:block" or "log:block=1h", the exact log behind a
	// refusal cache that refuses a key it refused till the window's end,
	// or for the duration. Its run is still named "log".
	Reference string `json:"reference,omitempty"`
	TopKeys   int    `json:"top_keys"`
	// Sweep, when the rules came from a sweep, lists its axes: every
	// L × W pair is one of Rules.
	Sweep *Sweep `json:"sweep,omitempty"`
	// Budget is the user's tolerance for disagreement, if given: the
	// report marks the algorithms that meet it.
	Budget *Budget `json:"budget,omitempty"`
	// Clients lists the retry policies of the closed-loop replays.
	Clients []string `json:"clients,omitempty"`
	// Deployment is the grid of simulated distributed deployments.
	Deployment *Deployment `json:"deployment,omitempty"`
}

// Sweep is a grid of rules: every limit in L with every window in W.
type Sweep struct {
	L []int64  `json:"l"`
	W []string `json:"w"` // windows as Go durations, "1s", "1m"
}

// Budget bounds the over- and under-admission rates (fractions of
// requests) an algorithm may have to be acceptable, and the same errors in
// the limiter's own terms: MaxOverOfRefused bounds the share of the log's
// refusals it lets through (Run.OverOfRefused; met when the log refuses
// nothing), MaxUnderOfAdmitted the share of the log's admissions it
// refuses (Run.UnderOfAdmitted). A nil field sets no bound.
type Budget struct {
	MaxOver            *float64 `json:"max_over,omitempty"`
	MaxUnder           *float64 `json:"max_under,omitempty"`
	MaxOverOfRefused   *float64 `json:"max_over_of_refused,omitempty"`
	MaxUnderOfAdmitted *float64 `json:"max_under_of_admitted,omitempty"`
}

// IsSet tells whether the budget bounds anything.
func (b *Budget) IsSet() bool {
	return b != nil && (b.MaxOver != nil || b.MaxUnder != nil || b.MaxOverOfRefused != nil || b.MaxUnderOfAdmitted != nil)
}

// Deployment is a grid of simulated distributed deployments (-nodes): every
// plain rule and window algorithm is run on each number of nodes, with each
// sync interval and clock skew, against the exact global log (package
// distributed).
type Deployment struct {
	Nodes      []int   `json:"nodes"`
	Route      string  `json:"route"`                 // random, hash or roundrobin (distributed.ParseRoute)
	Sync       []int64 `json:"sync_ns"`               // between the nodes' exchanges with the shared store; 0: a central store
	Skew       []int64 `json:"skew_ns"`               // clock offset spread over the nodes
	SkewRandom bool    `json:"skew_random,omitempty"` // draw each node's offset instead of spreading them evenly
	Seed       uint64  `json:"seed"`
}

// Run is the metrics of one algorithm under one rule, count policy and mode
// (docs/definitions.md §16). The reference appears as a run of algorithm "log".
type Run struct {
	Rule      string `json:"rule"`
	Count     string `json:"count"`
	Mode      string `json:"mode"`
	Algorithm string `json:"algorithm"`

	Requests     int64 `json:"requests"`
	Admitted     int64 `json:"admitted"`
	Rejected     int64 `json:"rejected"`
	AdmittedCost int64 `json:"admitted_cost"`
	RejectedCost int64 `json:"rejected_cost"`

	// Disagree counts the requests the run decided differently from the
	// reference: Over (it admitted, the log rejected) plus Under (it
	// rejected, the log admitted). Rates are over Requests.
	Disagree     int64   `json:"disagree"`
	Over         int64   `json:"over"`
	Under        int64   `json:"under"`
	DisagreeRate float64 `json:"disagree_rate"`
	OverRate     float64 `json:"over_rate"`
	UnderRate    float64 `json:"under_rate"`

	// The errors in the limiter's own terms (log_terms.go): LogRefused
	// and LogAdmitted count the requests the exact log (the log run of the
	// same rule, count and mode) refuses and admits; OverOfRefused is
	// Over ÷ LogRefused, the share of the log's refusals this run lets
	// through (absent when the log refuses nothing), UnderOfAdmitted is
	// Under ÷ LogAdmitted, the share of the log's admissions it refuses
	// (absent when the log admits nothing). Absent altogether in a
	// summary written before they were measured.
	LogRefused      *int64   `json:"log_refused,omitempty"`
	LogAdmitted     *int64   `json:"log_admitted,omitempty"`
	OverOfRefused   *float64 `json:"over_of_refused,omitempty"`
	UnderOfAdmitted *float64 `json:"under_of_admitted,omitempty"`

	Keys         int64 `json:"keys"`
	KeysDisagree int64 `json:"keys_disagree"`
	KeysOver     int64 `json:"keys_over"`
	KeysUnder    int64 `json:"keys_under"`

	Burst     *Burst      `json:"burst,omitempty"`
	Timeline  Timeline    `json:"timeline"`
	Bound     *Bound      `json:"token_bound,omitempty"`
	Phase     Phase       `json:"phase"`
	RateError *RateError  `json:"rate_error,omitempty"`
	Memory    Memory      `json:"memory"`
	Peer      *Peer       `json:"peer,omitempty"`
	Client    *ClientSide `json:"client,omitempty"`
	// VsToken, for a leaky bucket, counts the requests it decided otherwise
	// than the token run of the same B and mode: none, as a queue only
	// delays what a bucket admits (a peer's is in Peer).
	VsToken *Disagreement `json:"vs_token,omitempty"`
	// Product, for a deployed product modelled from its source, compares
	// it with its textbook twin and weighs its deviations.
	Product *Product `json:"product,omitempty"`
	// Placed holds the run's decision counts in every placement of the
	// requests inside their timestamps' unit (trace.placements), the
	// first of which the figures above are.
	Placed  *Placed   `json:"placed,omitempty"`
	TopKeys []KeyStat `json:"top_keys"`
}

// RunOf returns the run of alg under rule, count and mode, nil if none.
func (s *Summary) RunOf(rule, count, mode, alg string) *Run {
	for i := range s.Runs {
		if r := &s.Runs[i]; experimentOf(r) == (experiment{rule, count, mode, alg}) {
			return r
		}
	}
	return nil
}

// UnmarshalJSON reads a run, its bound check under either name: token_bound
// (v1.2) or seed002_bound (v1 and v1.1).
func (r *Run) UnmarshalJSON(data []byte) error {
	type plain Run
	var v struct {
		plain
		// OldBound is the bound check under the name summaries before
		// v1.2 gave it. Nothing writes it any more; it is read for the v1
		// and v1.1 summaries that report and merge are still given (any
		// with a token, gcra, leaky or xrate run), among them the report's
		// test summaries small.summary.json and sweep.summary.json, whose
		// burst tables show it (capacity B, over B + L·T/W).
		OldBound *Bound `json:"seed002_bound"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = Run(v.plain)
	if r.Bound == nil {
		r.Bound = v.OldBound
	}
	return nil
}

// Peer is what a peer library's run (xrate: golang.org/x/time/rate) adds:
// its float arithmetic checked at every decision against an exact token
// bucket that recorded the same requests (docs/definitions.md §11), and its disagreement
// with the harness's exact token bucket of the same B in the same mode.
//
// A flip is a decision the library's float64 arithmetic got wrong on its
// own history. Boundary flips had an exact token count within one part in
// 2^40 of B of the cost; Nanosecond flips were within one nanosecond of
// refill of it (the library truncates the wait for missing tokens to whole
// nanoseconds); Drift flips are the rest, float error accumulated over
// refills. Disagreements with token that are not flips are history: they
// follow from earlier flips, which changed what the library had recorded.
type Peer struct {
	Checked    int64 `json:"checked"`
	Flips      int64 `json:"flips"`
	FlipsOver  int64 `json:"flips_over"`
	FlipsUnder int64 `json:"flips_under"`
	Boundary   int64 `json:"boundary"`
	Nanosecond int64 `json:"nanosecond"`
	Drift      int64 `json:"drift"`
	// VsToken counts the requests the library decided otherwise than the
	// token run of the same B and mode (absent when there is none).
	VsToken *Disagreement `json:"vs_token,omitempty"`
}

// Disagreement counts the requests two runs decided differently.
type Disagreement struct {
	Over  int64 `json:"over"`  // the first admitted, the other refused
	Under int64 `json:"under"` // the first refused, the other admitted
}

// Burst is the largest admitted cost that any span (t-W, t] contains, over
// all keys, its ratio to L, and the key where it happened. The log never
// exceeds 1; fixed reaches up to 2; token up to (B+L)/L. It is measured
// where a run records its own admissions: in independent mode, for the log
// in every mode, and for the window algorithms under count all (they record
// every request). Where a candidate records the log's admissions (shadow
// mode otherwise), its admissions are no traffic anyone would let through,
// and Burst is absent.
type Burst struct {
	Max   int64   `json:"max"`
	Ratio float64 `json:"ratio"`
	Key   string  `json:"key,omitempty"`
	// KeysOverL counts the keys whose burst exceeded L.
	KeysOverL int64 `json:"keys_over_l"`
}

// Bound is the token bucket's bound (docs/definitions.md §16.4) checked on the admitted
// requests of each key of a run with a capacity B (token, gcra, leaky,
// xrate): in any span of length T at most B + (L/W)*T cost is admitted.
// Violations counts the admissions at which some span ending there exceeded
// it; it must be 0 but for xrate's float flips. Written as token_bound;
// summaries before v1.2 named it seed002_bound, which UnmarshalJSON reads.
type Bound struct {
	B          int64 `json:"b"`
	Violations int64 `json:"violations"`
}

// Timeline counts requests and disagreements over the trace's time, in
// bins of WidthNS aligned to t = 0: bin i covers [(First+i)*WidthNS,
// (First+i+1)*WidthNS). The width starts at the rule's window and doubles
// whenever the trace would need more than 512 bins, so a timeline has at
// most 512 bins whatever the trace's length; widths of shards merge
// exactly, each a power-of-two multiple of W.
type Timeline struct {
	WidthNS  int64   `json:"width_ns"`
	First    int64   `json:"first"`
	Requests []int64 `json:"requests"`
	Over     []int64 `json:"over"`
	Under    []int64 `json:"under"`
	// Memory is the run's analytic state over all keys at the last instant
	// of each bin (see Memory), trailing zeros cut. It is nil, and absent
	// from the JSON, where the total is not measured
	// (Memory.TotalNotMeasured); a measured series of zeros is empty, [].
	Memory []int64 `json:"memory,omitzero"`
}

// Phase holds where in the fixed window (e/W, in Bins equal bins) the
// over- and under-admissions fall.
type Phase struct {
	Bins  int     `json:"bins"`
	Over  []int64 `json:"over"`
	Under []int64 `json:"under"`
}

// RateError is the distribution of estimate - exact, in requests (cost
// units) and as a fraction of L, over the requests of a shadow-mode (or
// --count all) run of a window algorithm. Quantiles are of |error| by
// nearest rank, read from the fixed-bin histogram: 0 among the errors
// exactly 0, else the upper edge of the bin holding them (bins of L/1000),
// clamped to the maximum. A quantile beyond the histogram's range is its
// lower bound 2L, marked AtLeast (docs/summary-schema.md).
type RateError struct {
	Samples     int64   `json:"samples"`
	Mean        float64 `json:"mean"`
	MeanAbs     float64 `json:"mean_abs"`
	MeanAbsFrac float64 `json:"mean_abs_frac_l"`
	MeanRel     float64 `json:"mean_rel"`
	SamplesRel  int64   `json:"samples_rel"`
	P50         float64 `json:"p50"`
	P50Frac     float64 `json:"p50_frac_l"`
	// P50AtLeast says that P50 lies beyond the histogram: the median
	// |error| is at least P50 (2L), and at most MaxAbs.
	P50AtLeast bool    `json:"p50_at_least,omitempty"`
	P99        float64 `json:"p99"`
	P99Frac    float64 `json:"p99_frac_l"`
	P99AtLeast bool    `json:"p99_at_least,omitempty"` // as P50AtLeast
	MaxAbs     float64 `json:"max"`
	MaxAbsFrac float64 `json:"max_frac_l"`
	// Histogram bins the exact signed error (the estimate is the rational
	// the algorithm decides on): an error on an edge is in the bin that
	// edge starts.
	Histogram ErrorHistogram `json:"histogram"`
	// Sums are the exact sums the means come from, as 128-bit fixed-point
	// integers [high, low 64 bits]: positive and negative errors in units of
	// 10^-6 requests, relative errors in units of 10^-9. Merging shards adds
	// them, so a merged mean has the same bits as one pass.
	Sums RateErrorSums `json:"sums"`
}

// RateErrorSums are RateError's exact sums.
type RateErrorSums struct {
	Pos [2]uint64 `json:"pos"`
	Neg [2]uint64 `json:"neg"`
	Rel [2]uint64 `json:"rel"`
}

// ErrorHistogram is the signed error as a fraction of L in fixed bins:
// bin i covers [Lo + i*Width, Lo + (i+1)*Width). Counts lists the non-empty
// bins as [i, count]; Below and Above count what fell outside. Zero counts
// the errors exactly 0, which are also in the bin [0, Width).
type ErrorHistogram struct {
	Lo     float64    `json:"lo"`
	Width  float64    `json:"width"`
	Counts [][2]int64 `json:"counts"`
	Below  int64      `json:"below"`
	Above  int64      `json:"above"`
	Zero   int64      `json:"zero,omitempty"`
}

// Memory is the analytic state size of the algorithm (see each algorithm's
// doc in package algorithms): the bytes a compact implementation keeps per
// key, not counting the key itself. The log's entries are pruned when their
// key is next seen, as an in-process log or a Redis sorted set trimmed on
// each request would.
type Memory struct {
	Model string `json:"model"`
	// PeakPerKey is the largest state one key held at any instant.
	PeakPerKey int64 `json:"peak_per_key"`
	// MeanPerKey is the mean over keys of each key's peak, SumOfPeaks
	// over Keys.
	MeanPerKey float64 `json:"mean_per_key"`
	SumOfPeaks int64   `json:"sum_of_peaks"`
	// PeakTotal is the largest state all keys held in one window of the
	// rule (Windows), each key counted at its largest there: for the log,
	// its entries in the window (as a log pruned exactly when entries
	// expire would hold); for the others, their size times the keys with a
	// request in the window or whose state is not back to its initial value
	// at its start. It is at least the state all keys held together at any
	// one instant, and that exactly for fixed and the counters (unless a
	// key's only requests in a window left no state: each cost more than L).
	PeakTotal int64 `json:"peak_total"`
	// Windows is the series PeakTotal is the largest of, in a shard's
	// summary only (see MemoryWindows).
	Windows *MemoryWindows `json:"windows,omitempty"`
	// TotalNotMeasured says that the trace spans more than
	// MaxMemoryWindows windows of the rule, too many to count the state
	// per window in bounded memory, or that the run's state is a log of
	// its own (Model MemoryModelOwnLog), whose total per window is not
	// counted: PeakTotal is then 0 and the timeline has no memory series,
	// which the report says rather than show 0 B.
	TotalNotMeasured bool `json:"peak_total_not_measured,omitempty"`
}

// MemoryModelOwnLog is the memory model of a product that keeps a log of
// its own (entries the exact log would not hold: refused requests, other
// times): its peak per key is its own, its total per window not measured.
const MemoryModelOwnLog = "per entry in its own log, pruned when the key is next seen; total: not measured"

// FillWindows sets r's timeline memory and Memory from its windows,
// which it keeps only if keep (a shard's summary).
func (r *Run) FillWindows(keep bool) {
	w := r.Memory.Windows
	if w == nil {
		return
	}
	r.Timeline.Memory = w.Binned(r.Timeline.WidthNS, r.Timeline.First, len(r.Timeline.Requests))
	r.Memory.Fill(int(r.Keys), r.Timeline.Memory)
	if !keep {
		r.Memory.Windows = nil
	}
}

// Fill derives MeanPerKey, from SumOfPeaks over keys, and PeakTotal, the
// largest of series (Timeline.Memory).
func (m *Memory) Fill(keys int, series []int64) {
	m.MeanPerKey, m.PeakTotal = 0, 0
	if keys > 0 {
		m.MeanPerKey = float64(m.SumOfPeaks) / float64(keys)
	}
	for _, v := range series {
		m.PeakTotal = max(m.PeakTotal, v)
	}
}

// KeyStat is one key's disagreement in a run.
type KeyStat struct {
	Key      string `json:"key"`
	Requests int64  `json:"requests"`
	Disagree int64  `json:"disagree"`
	Over     int64  `json:"over"`
	Under    int64  `json:"under"`
	Burst    *int64 `json:"burst,omitempty"` // absent where Run.Burst is
}

// ClientSide is what a run's decisions mean to the clients (docs/definitions.md
// §16.8), measured where the run records its own history (not
// for a candidate that records the log's admissions in shadow mode):
//
//   - RetryAfter: at each rejection, the exact delay until the same request
//     would be admitted if nothing else arrived, the truthful Retry-After
//     (algorithms.RetryAfterer), after the rejection is recorded when the
//     policy counts it; Never counts the rejections no wait can cure (a
//     cost above the limit).
//   - SecondsExtra: how much longer a client waits when that delay is sent
//     as HTTP's whole seconds, rounded up; FloorEarly counts the rejections
//     whose delay is not a whole number of seconds, where a client (or a
//     server) rounding down would come back too early and be refused again.
//   - Recovery: per key, from the first rejection of a run of rejections to
//     the key's next admission: how long a client that keeps sending is
//     refused. Unrecovered counts the keys still refused at the end.
//   - Delay (leaky only): per admitted request, the time from its arrival
//     until it has left the queue (algorithms.Delayer).
type ClientSide struct {
	RetryAfter   *Distribution `json:"retry_after,omitempty"`
	Never        int64         `json:"retry_after_never"`
	SecondsExtra *Distribution `json:"whole_seconds_extra,omitempty"`
	FloorEarly   int64         `json:"floor_early"`
	Recovery     *Distribution `json:"recovery"`
	Unrecovered  int64         `json:"unrecovered"`
	Delay        *Distribution `json:"delay,omitempty"`
}

// Distribution is a mergeable histogram of durations and its digest.
type Distribution struct {
	DurationSummary
	Histogram Durations `json:"histogram"`
}

// DistributionOf returns the distribution of the histogram d (nil for nil).
func DistributionOf(d *Durations) *Distribution {
	if d == nil {
		return nil
	}
	return &Distribution{DurationSummary: d.Summary(), Histogram: *d}
}

// Marshal returns the summary as indented JSON with a final newline,
// arrays of numbers kept on one line.
func (s *Summary) Marshal() ([]byte, error) {
	compact, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return indentJSON(compact)
}

// WriteFile writes the summary to path atomically: to a temporary file in
// the same folder, renamed into place, so a crash never leaves half a file.
func (s *Summary) WriteFile(path string) error {
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, data)
}
