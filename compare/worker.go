package compare

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"ratebench/algorithms"
	"ratebench/internal/prefetch"
	"ratebench/summary"
)

// worker replays the keys given to it through every experiment of a
// Config: the keys' interning and state, every limiter and accumulator. An
// Engine has one worker, or one per core, each replaying the keys that hash
// to it. Not safe for concurrent use.
type worker struct {
	cfg      Config
	keys     *keyTable
	block    algorithms.Block // per key: its rows, then the state of every limiter placed there
	blockMem *blockMemory     // where the block's chunks come from
	rows     keyRows          // per key, what every run keeps of it
	refs     keyRefs[int32]   // per entry of the current key dictionary, 1 + its key's id (addRef)
	groups   []*group
	order    []*group // the groups in the order a request goes through them: a group whose offered use is read from another after it (offeredFrom)
	capN     int      // ids below capN are valid in every limiter and accumulator
	notes    []string

	requests, cost int64
	start, end     int64
	unit           int64              // the gcd of the times replayed (resolution.go)
	warmSink       uint64             // what warm loaded, kept so that the loads are made
	aheads         []algorithms.Ahead // the limiters whose state reaches past the block (prefetchAhead)
	stateClosed    bool               // closeState has run

	rel    releaser    // releases the state of idle keys
	closed closedLoop  // the closed-loop replays, if any
	dist   deployments // the simulated distributed deployments, if any
	sims   simKeys     // their keys' ids
}

// group is one rule × count policy: a reference log and the candidates of
// every mode, all fed the same requests.
type group struct {
	rule        algorithms.Rule   // the rule, or of layered rules the primary (longest window)
	layers      []algorithms.Rule // the layers of a layered rule; the rule alone otherwise
	guards      []*algorithms.Log // the reference's logs of the layers besides the primary
	guardRules  []algorithms.Rule // and their rules
	count       Count
	ref         *algorithms.Log
	refBlock    *algorithms.Blocked // the reference's refusal cache, nil without one (Config.Reference)
	refAcc      *runAcc
	modes       []Mode // the modes this group reports (one under count all)
	cands       []*candidate
	links       []*productLink           // the candidates' metrics that weigh a decision against another run's (groupObserver): the products' against their twins'
	vsTokens    []*vsTokenAcc            // and the peers' and leaky buckets' against the token run's
	win         windowGrid               // counts the state held per window of the rule
	use         *useAcc                  // the rule's offered use, nil for layered rules (offered_use.go)
	offeredFrom *group                   // under count accepted, the count-all group of the same rule, whose reference gives the offered use (its useAcc keeps no refusals); nil if none
	base        int                      // the index of the group's reference among the engine's runs with rows
	ownBase     int                      // and among those with a history of their own
	scratch     keyRun                   // the row a companion's counts go to: no figure reads them
	statePeak   algorithms.PerKey[int64] // per key, the log's size counted in the window of windowGrid's stateEnd
	requests    *timelineAcc             // the requests per time bin, which every run's timeline shares
	current     observation              // the request being replayed, as each run's metrics see it
}

// candidate is one algorithm in one mode.
type candidate struct {
	lim       algorithms.Limiter
	rel       algorithms.Releaser  // lim's idle test, for the state it holds
	warm      algorithms.Warmer    // lim's state loader, nil if it has none
	est       algorithms.Estimator // non-nil where rate error is measured
	behind    algorithms.Limiter   // for est behind a refusal cache, the algorithm est is, brought to each request's time
	mode      Mode
	recordAll bool // it records every request: count all applies, or it counts every request (CountsEvery)
	acc       *runAcc

	admit    bool                // the decision on the last request
	estimate algorithms.Rational // and the estimate before it, where est is measured

	of *candidate // the run of an earlier mode whose limiter this one shares (mode_share.go), nil if it has its own

	// A lazy shadow run and the independent run whose state it shares
	// until a key's first disagreement (lazy_shadow.go).
	lazy    *candidate           // the shadow run lazy on this one, nil if none
	lazyEst algorithms.Estimator // with lazy, this run's limiter, whose estimate the lazy run reads
	shares  bool                 // with lazy: on the current request the lazy run shares this run's state of the key
	forks   bool                 // and the request is the key's first disagreement: the lazy run took the state, and records
	lazyOf  *candidate           // the independent run this shadow run is lazy on, nil if none
	copier  algorithms.KeyCopier // with lazyOf: this run's limiter
	idleAt  int64                // the window start at which the key settled last was found idle (state_series.go)

	companion bool // replayed for a product's analysis, not listed in the summary
	slot      int  // its row's index in the group's part of a key's row; -1 for a companion, which keeps only totals
	ownSlot   int  // its own row's index in the group's part of a key's own rows; -1 for a run without a history of its own
}

// newCandidate returns the run of lim in mode m in group g; full says
// whether it measures everything (a companion of a product's analysis
// only counts its decisions).
func (g *group) newCandidate(cfg Config, lim algorithms.Limiter, m Mode, full bool) *candidate {
	cd := &candidate{lim: lim, rel: releaserOf(lim), warm: warmerOf(lim), mode: m, recordAll: recordsAll(lim, g.count)}
	est, isEst := lim.(algorithms.Estimator)
	if full && isEst && (m == Shadow || cd.recordAll) {
		cd.est = est
	}
	if b, ok := lim.(*algorithms.Blocked); ok && full && g.count == CountAll && cd.recordAll {
		// Under count all the algorithm behind the cache records every
		// request, blocked or not, as the log does: its estimate is
		// measured against the log's count of the same history.
		if est, ok := b.Inner().(algorithms.Estimator); ok {
			cd.est, cd.behind = est, b.Inner()
		}
	}
	cd.acc = newRunAcc(g.rule, lim, cd.est != nil, full && (m == Independent || cd.recordAll))
	if cd.acc.burst != nil && !cfg.tuning.ownBurst {
		// measure the burst from the reference's and the disagreements (count
		// accepted), or from every request's and the run's refusals (count all)
		cd.acc.burst.ref, cd.acc.burst.all = g.ref, g.count == CountAll
	}
	return cd
}

// newWorker returns a worker for a normalized cfg.
func newWorker(cfg Config) (*worker, error) {
	w := &worker{cfg: cfg, keys: newKeyTable()}
	setBlockMemory(w)
	for _, set := range cfg.ruleSets() {
		r := algorithms.PrimaryRule(set)
		for _, c := range cfg.Counts {
			ref, block, err := ReferenceOf(cfg.Reference, r)
			if err != nil {
				return nil, err
			}
			g := &group{rule: r, layers: set, count: c, ref: ref, refBlock: block, modes: cfg.Modes, win: windowGrid{w: r.W, cycle: cfg.tuning.markCycle}}
			for _, l := range set {
				if l != r {
					g.guards = append(g.guards, algorithms.NewLog(l))
					g.guardRules = append(g.guardRules, l)
				}
			}
			g.refAcc = newRunAcc(r, g.ref, false, true)
			g.use = newUseAcc(set, c, w.keys)
			if len(g.guards) > 0 { // all layers must admit: Retry-After is their fixed point
				layers := []algorithms.Limiter{g.ref}
				rules := []algorithms.Rule{r}
				for i, l := range g.guards {
					layers = append(layers, l)
					rules = append(rules, g.guardRules[i])
				}
				g.refAcc.client.ra = algorithms.LayeredOf(layers, rules)
			}
			switch {
			case c == CountAccepted:
				g.refAcc.burst.log = g.ref // the reference records exactly what it admits
			case !cfg.tuning.ownBurst:
				g.refAcc.burst.ref, g.refAcc.burst.all = g.ref, true // it records every request: its admissions are that less its refusals
			}
			if c == CountAll {
				g.modes = []Mode{countAllMode(cfg.Modes)}
			}
			for _, m := range g.modes {
				first := len(g.cands)
				for _, spec := range cfg.Algorithms[1:] { // [0] is the log
					lim, err := algorithms.New(spec, r)
					if len(set) > 1 {
						lim, err = algorithms.NewLayered(spec, set)
					}
					if err != nil {
						return nil, err
					}
					g.cands = append(g.cands, g.newRun(cfg, lim, m, true))
				}
				listed := slices.Clone(g.cands[first:])
				err := g.addCompanions(listed, cfg.Deviations, cfg.tuning.ownTwin, func(lim algorithms.Limiter) *candidate { return g.newRun(cfg, lim, m, false) })
				if err != nil {
					return nil, err
				}
			}
			g.win.Held = make([][]int64, len(g.cands))
			g.pairPeers()
			g.pairLazy(cfg)
			g.requests = newTimelineAcc(r.W)
			g.refAcc.timeline.group = g.requests
			for _, c := range g.cands {
				c.acc.timeline.group = g.requests
			}
			for _, c := range g.cands {
				g.addGroupObservers(c.acc.groupObservers)
			}
			w.groups = append(w.groups, g)
		}
	}
	w.order = orderGroups(w.groups)
	base, own := 0, 0
	for _, g := range w.groups {
		g.base, g.ownBase = base, own
		g.refAcc.rows = runRows{rows: &w.rows, run: base, own: own}
		base++
		own++
		for _, c := range g.cands {
			c.slot, c.ownSlot = -1, -1
			if c.companion {
				continue
			}
			c.slot = base - g.base
			c.acc.rows = runRows{rows: &w.rows, run: base, own: -1}
			base++
			if c.acc.burst != nil {
				c.ownSlot = own - g.ownBase
				c.acc.rows.own = own
				own++
			}
		}
	}
	w.rows.place(&w.block, base, own)
	w.rows.setNarrow(cfg.tuning.narrowMax)
	for _, g := range w.groups {
		if p, ok := stateOf(g.ref, g.refBlock).(algorithms.Placer); ok { // the log, and its cache if any
			p.Place(&w.block)
		}
		for _, l := range g.guards {
			l.Place(&w.block)
		}
		g.statePeak.Place(&w.block)
		if g.use != nil {
			g.use.place(&w.block)
		}
		g.refAcc.place(&w.block)
		for _, c := range g.cands {
			c.acc.place(&w.block)
			if p, ok := c.lim.(algorithms.Placer); ok && c.of == nil {
				p.Place(&w.block)
				c.warm = nil // warm loads the key's block
			}
		}
	}
	for _, g := range w.groups {
		w.aheads = appendAhead(w.aheads, g.ref)
		for _, c := range g.cands {
			if c.of == nil {
				w.aheads = appendAhead(w.aheads, c.lim)
			}
		}
	}
	w.rel = newReleaser(w)
	var err error
	if w.closed, err = newClosedLoop(cfg); err != nil {
		return nil, err
	}
	if w.dist, err = newDeployments(cfg); err != nil {
		return nil, err
	}
	w.sims.on = len(w.closed.sims)+len(w.dist.sims) > 0
	for _, s := range cfg.skipped {
		w.notes = append(w.notes, s.String())
	}
	if name := cfg.coupled(); name != "" {
		w.notes = append(w.notes, name+" couples keys (a key's decision depends on the others' requests), so every key was replayed in one pass, in the trace's order")
	}
	if slices.Contains(cfg.Counts, CountAll) {
		if n := w.countAllNote(); n != "" {
			w.notes = append(w.notes, n)
		}
	}
	return w, nil
}

// orderGroups pairs each plain rule's group under count accepted with
// its group under count all, if the replay has one, to read the offered
// use from (group.offeredFrom), and returns the groups in the order a
// request goes through them: each count-all group before the group that
// reads it, the others as configured.
func orderGroups(groups []*group) []*group {
	var order, readers []*group
	for _, g := range groups {
		if g.use == nil || g.count != CountAccepted {
			order = append(order, g)
			continue
		}
		for _, a := range groups {
			if a.use != nil && a.count == CountAll && a.rule == g.rule {
				g.offeredFrom, g.use.refusals = a, false
			}
		}
		if g.offeredFrom == nil {
			order = append(order, g)
		} else {
			readers = append(readers, g)
		}
	}
	return append(order, readers...)
}

// countAllMode is the one mode the runs under count all are made in (docs/definitions.md
// §3): the window algorithms record every request there, so for them the
// modes coincide, and the algorithms that count only what they admit
// (token, gcra, leaky, peers) record their own admissions, as in
// independent mode. Only when independent is not asked for are they run in
// shadow mode, recording the log's admissions. The choice does not depend
// on the order of the modes.
func countAllMode(modes []Mode) Mode {
	if slices.Contains(modes, Independent) {
		return Independent
	}
	return Shadow
}

// countAllNote says how the runs under count all are made, naming the
// configured algorithms that count only what they admit; empty when there
// is nothing to say (one mode asked for, and no such algorithm).
func (w *worker) countAllNote() string {
	var own []string // the algorithms that count only what they admit
	for _, g := range w.groups {
		if g.count != CountAll {
			continue
		}
		for _, c := range g.cands {
			if !c.lim.CountsRejected() && !slices.Contains(own, c.lim.Name()) {
				own = append(own, c.lim.Name())
			}
		}
	}
	m := countAllMode(w.cfg.Modes)
	var b strings.Builder
	b.WriteString("count all: the window algorithms record every request, so for them the independent and shadow modes coincide")
	if len(w.cfg.Modes) > 1 {
		fmt.Fprintf(&b, "; the runs under count all are made once, as %s", m)
	} else if len(own) == 0 {
		return ""
	}
	if len(own) > 0 {
		whose := "their own admissions"
		if m == Shadow {
			whose = "the log's admissions"
		}
		fmt.Fprintf(&b, ", and the algorithms that count only what they admit (%s) record %s there", strings.Join(own, ", "), whose)
	}
	return b.String()
}

// add1 replays a request of a worker that has every key (checked).
func (w *worker) add1(key []byte, t, cost int64) error {
	id, isNew, err := w.keys.intern(key, t)
	if err != nil {
		return err
	}
	return w.added(id, isNew, key, t, cost)
}

// addHashed replays a request whose key's hash (KeyHash) the caller has
// computed, checked and owned.
func (w *worker) addHashed(key []byte, h uint64, t, cost int64) error {
	id, isNew, err := w.keys.internHash(key, h, t)
	if err != nil {
		return err
	}
	return w.added(id, isNew, key, t, cost)
}

// added replays a request of key id, just interned (isNew for a key not
// live before).
func (w *worker) added(id int32, isNew bool, key []byte, t, cost int64) error {
	if isNew {
		w.sims.assign(id) // a key seen before gets its old id back in restore
	}
	if isNew && len(w.rel.index) > 0 {
		w.ensure(id)
		back, err := w.restore(id, key, t)
		if err != nil {
			w.keys.release(id)
			return err
		}
		if back {
			w.keys.seen-- // a key seen before
		}
	}
	w.add(id, t, cost)
	w.rel.observe(w, t)
	return w.feedSimulations(id, key, t, cost)
}

// feedSimulations hands the request of key id to the closed-loop and
// distributed simulations, if any.
func (w *worker) feedSimulations(id int32, key []byte, t, cost int64) error {
	if !w.sims.on {
		return nil
	}
	sid := w.sims.ids[id]
	if err := w.closed.add(sid, key, t, cost); err != nil {
		return err
	}
	return w.dist.add(sid, key, t, cost)
}

// addIndexed replays a request whose key comes with a dense id of its own
// (Engine.AddIndexed), checked and owned. key may be empty for an id seen
// before (a parallel replay sends a name once): the key table and the
// simulations read a name only at its key's first request.
func (w *worker) addIndexed(id int32, key []byte, t, cost int64) error {
	isNew, err := w.keys.internIndexed(id, key, t)
	if err != nil {
		return err
	}
	if isNew {
		w.sims.assign(id)
	}
	w.rel.enabled = false // the caller's ids cannot be given to other keys
	w.rel.peakLive = max(w.rel.peakLive, w.keys.live)
	w.add(id, t, cost)
	return w.feedSimulations(id, key, t, cost)
}

func (w *worker) add(id int32, t, cost int64) {
	w.ensure(id)
	if w.requests == 0 || t < w.start {
		w.start = t
	}
	w.end = max(w.end, t)
	if u := w.unit; u != 1 && (u == 0 || t%u != 0) { // once 1, it stays
		w.unit = algorithms.GCD(u, t)
	}
	w.requests++
	w.cost += cost
	st := w.keys.at(id)
	from := st.from
	st.from = max(st.from, t+1) // (a sweep may have settled past t if the trace is out of order across keys)
	w.warm(id)
	row, own := w.rows.row(id), w.rows.ownRow(id)
	for _, g := range w.order {
		g.add(row[g.base:], own[g.ownBase:], id, t, cost, from)
	}
}

// ensure makes id valid in every limiter and accumulator.
func (w *worker) ensure(id int32) {
	if int(id) >= w.capN {
		w.growKeys(max(2*w.capN, int(id)+1, 1024))
	}
	if int(id) >= w.block.Len() { // the block grows a chunk at a time, not to capN: most of what a key holds is there
		w.block.Grow(int(id) + 1)
	}
}

func (w *worker) growKeys(n int) {
	w.capN = n
	for _, g := range w.groups {
		stateOf(g.ref, g.refBlock).Grow(n)
		for _, l := range g.guards {
			l.Grow(n)
		}
		g.refAcc.grow(n)
		if g.use != nil {
			g.use.grow(n)
		}
		for _, c := range g.cands {
			if c.of == nil {
				c.lim.Grow(n)
			}
			c.acc.grow(n)
		}
	}
}

// add replays a request of key id at t, whose rows in the group's runs are
// row (the reference's, then the candidates') and own (the same, of the
// runs with a history of their own); the key's state samples are settled
// up to from (see settle).
func (g *group) add(row []keyRun, own []ownRun, id int32, t, cost, from int64) {
	s := g.win.start(t)
	m := g.win.loMark
	if from < s { // else from is in t's window: no start in [from, t)
		g.settle(row, id, from, s-1)
	}
	peak := g.statePeak.At(id)
	g.countLog(&row[0], peak, id, s, m)
	g.requests.add(t, 1, 0, 0)
	all := g.count == CountAll
	ref, exact := decideReference(g.ref, g.guards, g.refBlock, all, id, t, cost) // exact: cost in (t-W, t] before this request
	recorded := ref || all
	if g.use != nil {
		e := exact
		if g.offeredFrom != nil {
			e = g.offeredFrom.current.exact // replayed before this group (worker.order)
		}
		g.use.add(id, t, cost, e, ref)
	}
	req := &g.current
	*req = observation{id: id, t: t, cost: cost, admit: ref, ref: ref, recorded: recorded, exact: exact, h: &row[0], o: &own[0]}
	g.refAcc.add(req)
	if recorded {
		g.recorded(peak, id, t)
	}
	for i, c := range g.cands {
		h, o := &g.scratch, (*ownRun)(nil)
		if c.slot >= 0 {
			h = &row[c.slot]
			g.held(h, i, s, m)
		}
		if c.ownSlot >= 0 {
			o = &own[c.ownSlot]
		}
		var admit bool
		switch {
		case c.of != nil: // the limiter decided, and recorded, in the earlier mode's run
			admit, c.estimate = c.of.admit, c.of.estimate
		case c.lazyOf != nil && c.lazyOf.shares: // the independent run's state is this run's; its turn set the estimate
			admit = c.lazyOf.admit
		default:
			admit = c.lim.Decide(id, t, cost)
			if c.est != nil {
				if c.behind != nil && !admit {
					// A request the cache refused did not reach the algorithm:
					// bring it to t (Decide only advances the state) to read it.
					c.behind.Decide(id, t, cost)
				}
				c.estimate = c.est.Estimate(id, t) // before the run records the request
			}
		}
		if c.est != nil {
			req.est = c.estimate
		}
		if c.lazy != nil {
			c.shareState(row, id, t, admit, ref) // before this run records
		}
		record := records(admit, ref, c.recordAll, c.mode)
		if record && c.of == nil && (c.lazyOf == nil || !c.lazyOf.shares || c.lazyOf.forks) {
			c.lim.Record(id, t, cost)
		}
		req.admit, req.recorded, req.h, req.o = admit, record, h, o
		c.acc.add(req)
		c.admit = admit
	}
	for _, p := range g.links { // each type in a loop of its own: settle is inlined
		p.settle()
	}
	for _, v := range g.vsTokens {
		v.settle()
	}
}

// addGroupObservers adds a run's metrics that weigh its decisions against
// another run's to the group's, which settles them once every run has
// decided a request.
func (g *group) addGroupObservers(obs []groupObserver) {
	for _, o := range obs {
		switch o := o.(type) {
		case *productLink:
			g.links = append(g.links, o)
		case *vsTokenAcc:
			g.vsTokens = append(g.vsTokens, o)
		default:
			panic(fmt.Sprintf("compare: %T weighs a run against another, but the group does not settle it", o))
		}
	}
}

// traceInfo returns what the worker saw of the trace (path, format and
// skipped records are the reader's, for the caller to fill).
func (w *worker) traceInfo() summary.TraceInfo {
	return summary.TraceInfo{Requests: w.requests, Cost: w.cost, Keys: int64(w.keys.len()), StartNS: w.start, EndNS: w.end,
		ResolutionNS: w.unit, SameTime: w.keys.sameTime}
}

// summary closes the worker's accumulators and returns its summary, runs
// ordered by rule, count, mode, then algorithm as configured (the log
// first); offeredEnd is the latest time of any request offered to the
// engine (see closeState). It ends the worker's replay.
func (w *worker) summary(trace summary.TraceInfo, partial bool, offeredEnd int64) *summary.Summary {
	w.closeState(offeredEnd)
	info := w.traceInfo()
	info.Path, info.Format, info.Fingerprint = trace.Path, trace.Format, trace.Fingerprint
	info.TSUnit, info.TSUnitFrom = trace.TSUnit, trace.TSUnitFrom
	info.Skipped, info.SkippedExamples = trace.Skipped, trace.SkippedExamples
	info.Input, info.Dataset = trace.Input, trace.Dataset
	s := &summary.Summary{Trace: info, Notes: w.notes, Partial: partial, Shard: w.cfg.Shard}
	s.Config = summary.RunConfig{Algorithms: w.cfg.Algorithms, TopKeys: w.cfg.TopKeys, Sweep: w.cfg.Sweep, Budget: w.cfg.Budget}
	for _, p := range w.cfg.Clients {
		s.Config.Clients = append(s.Config.Clients, p.String())
	}
	s.Clients = w.closed.results()
	s.Config.Deployment = w.cfg.Deployment
	if w.cfg.Reference != "log" {
		s.Config.Reference = w.cfg.Reference
	}
	s.Distributed = w.dist.results()
	for _, set := range w.cfg.ruleSets() {
		s.Config.Rules = append(s.Config.Rules, algorithms.FormatRules(set))
	}
	for _, c := range w.cfg.Counts {
		s.Config.Counts = append(s.Config.Counts, string(c))
	}
	for _, m := range w.cfg.Modes {
		s.Config.Modes = append(s.Config.Modes, string(m))
	}
	retained := w.rel.retained()
	passes := w.closeKeys(w.cfg.TopKeys)
	base := 0 // index of the group's reference in w.runs(), the runs with rows
	for _, g := range w.groups {
		state := &g.win
		ref := g.refAcc.summary(w.keys, passes[base], state, nil, retained, base)
		for _, m := range g.modes {
			runs := []summary.Run{ref}
			for i, c := range g.cands {
				if c.mode == m && !c.companion {
					r := c.acc.summary(w.keys, passes[base+c.slot], state, state.Held[i], retained, base+c.slot)
					runs = append(runs, r)
				}
			}
			for _, r := range runs {
				r.Rule, r.Count, r.Mode = algorithms.FormatRules(g.layers), string(g.count), string(m)
				s.Runs = append(s.Runs, r)
			}
		}
		base += g.rowRuns()
		if g.use != nil {
			s.Bindings = append(s.Bindings, g.use.binding(algorithms.FormatRules(g.layers), g.count, g.refAcc.requests))
		}
	}
	s.Conclude()
	return s
}

// String names the experiment grid, for logs.
func (w *worker) String() string {
	var parts []string
	for _, g := range w.groups {
		parts = append(parts, fmt.Sprintf("%s count=%s modes=%v", algorithms.FormatRules(g.layers), g.count, g.modes))
	}
	return strings.Join(parts, "; ")
}

// warm loads what a request of key id will read, its part of the block
// (its rows and the state of the limiters placed there) and its state in
// every other limiter, before any of them decides: the loads are independent, so
// the processor waits for their cache misses together.
func (w *worker) warm(id int32) {
	var sum uint64
	words := w.block.Key(id)
	for i := 0; i < len(words); i += 8 { // a word of each cache line
		sum += words[i]
	}
	sum += words[len(words)-1]
	for _, g := range w.groups {
		sum += g.ref.Warm(id)
		for _, c := range g.cands {
			if c.warm != nil {
				sum += c.warm.Warm(id)
			}
		}
	}
	w.warmSink += sum
}

// appendAhead appends lim to aheads if its state may reach past the
// block.
func appendAhead(aheads []algorithms.Ahead, lim algorithms.Limiter) []algorithms.Ahead {
	if a, ok := lim.(algorithms.Ahead); ok {
		return append(aheads, a)
	}
	return aheads
}

// prefetchAhead asks for what key id's state holds past the block at
// depth (algorithms.Ahead), ahead of its request (id may be a guess, or
// -1): the block (depth 1) or what depth 1 named (depth 2) was asked for
// before.
func (w *worker) prefetchAhead(id int32, depth int) {
	if id < 0 || int(id) >= w.capN || int(id) >= w.block.Len() { // no guess, or a key not seen yet: it holds nothing
		return
	}
	for _, a := range w.aheads {
		if p := a.Ahead(id, depth); p != nil {
			prefetch.Line(p)
		}
	}
}

// prefetchBlock asks for key id's part of the block, ahead of its request
// (id may be a guess, or -1).
func (w *worker) prefetchBlock(id int32) {
	words := w.block.Peek(id)
	if len(words) == 0 {
		return
	}
	for i := 0; i < len(words); i += 8 { // a word of each line, and the last (the part need not start a line)
		prefetch.Line(unsafe.Pointer(&words[i]))
	}
	prefetch.Line(unsafe.Pointer(&words[len(words)-1]))
}

// warmerOf returns lim's state loader, nil if it has none.
func warmerOf(lim algorithms.Limiter) algorithms.Warmer {
	w, _ := lim.(algorithms.Warmer)
	return w
}

// records says whether a candidate records a request in its state: every
// request under count all (recordAll: the algorithm counts what it
// rejects) or for a product that counts every request (CountsEvery), the
// reference's decision in shadow mode, its own decision otherwise.
func records(admit, ref, recordAll bool, mode Mode) bool {
	switch {
	case recordAll:
		return true
	case mode == Shadow:
		return ref
	}
	return admit
}

// recordsAll says whether a candidate records every request, whatever it
// decides: under count all for an algorithm that counts what it rejects,
// and always for a product that counts every request (CountsEvery).
func recordsAll(lim algorithms.Limiter, c Count) bool {
	return c == CountAll && lim.CountsRejected() || algorithms.CountsEvery(lim)
}
