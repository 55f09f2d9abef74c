package summary

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

// merge adds the parts' counts and distributions.
func (c *ClientSide) merge(o *ClientSide, m *merging) (*ClientSide, error) {
	if c == nil {
		c = &ClientSide{}
	}
	m.add("retry_after_never", &c.Never, o.Never)
	m.add("floor_early", &c.FloorEarly, o.FloorEarly)
	m.add("unrecovered", &c.Unrecovered, o.Unrecovered)
	c.RetryAfter = m.sums.distribution(m.field("retry_after"), c.RetryAfter, o.RetryAfter)
	c.SecondsExtra = m.sums.distribution(m.field("whole_seconds_extra"), c.SecondsExtra, o.SecondsExtra)
	c.Recovery = m.sums.distribution(m.field("recovery"), c.Recovery, o.Recovery)
	c.Delay = m.sums.distribution(m.field("delay"), c.Delay, o.Delay)
	return c, nil
}

// distribution merges b into a. Its sample count is checked here; its
// bins, which a valid histogram keeps within the count, then cannot
// overflow.
func (s *sums) distribution(field string, a, b *Distribution) *Distribution {
	if b == nil {
		return a
	}
	var h Durations
	if a != nil {
		h = a.Histogram
	}
	n := h.Samples
	if s.add(field+".histogram.samples", &n, b.Histogram.Samples); s.err != nil {
		return a
	}
	h.Merge(b.Histogram)
	return DistributionOf(&h)
}

// validate checks what a run's decisions mean to its clients: counts
// within the run's, each distribution a histogram Add could have built
// whose digest has its samples.
func (c *ClientSide) validate(v *validator, path string, in *runIn) {
	r := in.run
	v.nonNegative(path+".retry_after_never", c.Never)
	v.atMost(path+".retry_after_never", c.Never, "the run's rejected", r.Rejected)
	v.nonNegative(path+".floor_early", c.FloorEarly)
	v.atMost(path+".floor_early", c.FloorEarly, "the run's rejected", r.Rejected)
	v.nonNegative(path+".unrecovered", c.Unrecovered)
	v.atMost(path+".unrecovered", c.Unrecovered, "the run's keys", r.Keys)
	for _, d := range []struct {
		name string
		dist *Distribution
	}{{"retry_after", c.RetryAfter}, {"whole_seconds_extra", c.SecondsExtra}, {"recovery", c.Recovery}, {"delay", c.Delay}} {
		if d.dist != nil {
			d.dist.validate(v, path+"."+d.name)
		}
	}
}

// validate checks a histogram of durations and its digest.
func (d *Distribution) validate(v *validator, path string) {
	if err := d.Histogram.Validate(); err != nil {
		v.fail(path+".histogram", "%v", err)
		return
	}
	v.equal(path+".samples", d.Samples, "histogram.samples", d.Histogram.Samples)
	v.equal(path+".max_ns", d.MaxNS, "histogram.max_ns", d.Histogram.MaxNS)
}
