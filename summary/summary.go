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
// the figures of arrivals placed inside a coarse clock's unit; SchemaV1_9
// adds a product's deviations_not_measured, the deviations of a compare
// without -deviations. A summary names the oldest version that has every field it holds
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
	SchemaV1_9 = "ratebench.summary/v1.9"
)

// Schemas are the versions ReadSummary reads, oldest first.
var Schemas = []string{SchemaV1, SchemaV1_1, SchemaV1_2, SchemaV1_3, SchemaV1_4, SchemaV1_5, SchemaV1_6, SchemaV1_7, SchemaV1_8, SchemaV1_9}

// SchemaOf returns the schema s is written in: the oldest version that has
// every field it holds.
func SchemaOf(s *Summary) string {
	if s.deviationsNotMeasured() {
		return SchemaV1_9
	}
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

// summaryResults are the results a summary holds beside its runs, each a
// list with its name in the JSON (results.go): merging and validating a
// summary loop over them.
var summaryResults = []results{
	resultsIn("bindings", "binding", func(s *Summary) *[]Binding { return &s.Bindings }, MergeBindings),
	resultsIn("clients", "closed-loop", func(s *Summary) *[]ClientsResult { return &s.Clients }, MergeClientsResults),
	resultsIn("distributed", "deployment", func(s *Summary) *[]DistributedResult { return &s.Distributed }, MergeDistributedResults),
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

// runFigures are the figures of a run beyond its counts, each with its
// name in the JSON and the field of Run it is held in (figure.go), in the
// order they are checked: merging and validating a run loop over them. A
// burst, a token bound, a rate error and placements follow from the run's
// configuration, so every part of a merge has them or none does.
var runFigures = []figure{
	optionalFigure("burst", everyPart, func(r *Run) **Burst { return &r.Burst }),
	optionalFigure("token_bound", everyPart, func(r *Run) **Bound { return &r.Bound }),
	alwaysFigure("timeline", func(r *Run) *Timeline { return &r.Timeline }),
	alwaysFigure("phase", func(r *Run) *Phase { return &r.Phase }),
	optionalFigure("rate_error", everyPart, func(r *Run) **RateError { return &r.RateError }),
	alwaysFigure("memory", func(r *Run) *Memory { return &r.Memory }),
	optionalFigure("peer", someParts, func(r *Run) **Peer { return &r.Peer }),
	optionalFigure("client", someParts, func(r *Run) **ClientSide { return &r.Client }),
	optionalFigure("vs_token", someParts, func(r *Run) **Disagreement { return &r.VsToken }),
	optionalFigure("product", someParts, func(r *Run) **Product { return &r.Product }),
	optionalFigure("placed", everyPart, func(r *Run) **Placed { return &r.Placed }),
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

// KeyStat is one key's disagreement in a run.
type KeyStat struct {
	Key      string `json:"key"`
	Requests int64  `json:"requests"`
	Disagree int64  `json:"disagree"`
	Over     int64  `json:"over"`
	Under    int64  `json:"under"`
	Burst    *int64 `json:"burst,omitempty"` // absent where Run.Burst is
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
