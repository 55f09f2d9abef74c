package summary

// The content of live.json for a live replay through a product's real
// software other than nginx (ratebench live PRODUCT): package live's.

// LiveProductSchemaVersion is the version of its layout.
const LiveProductSchemaVersion = 1

// LiveProduct is what a live replay through a product's real software
// measured. Everything but DurationNS is the same from run to run when the
// software's clock is driven by the trace.
type LiveProduct struct {
	Schema int `json:"schema"`
	// Product is the product's name (ratebench live NAME) and Software
	// the software and version that ran.
	Product  string    `json:"product"`
	Software string    `json:"software"`
	Trace    LiveTrace `json:"trace"`
	Rule     string    `json:"rule"`
	// Clock is "driven" when the software read the trace's times, or
	// "real" when it ran on its own clock, replayed at Speed.
	Clock string `json:"clock"`
	Speed string `json:"speed,omitempty"`
	// ModelSpec is the model the software is set beside, for the rule
	// the software was configured with (ModelRule: the rule at Speed).
	ModelSpec string `json:"model_spec"`
	ModelRule string `json:"model_rule"`
	// Admitted and Refused count the software's answers.
	Admitted int64 `json:"admitted"`
	Refused  int64 `json:"refused"`
	// Model sets the software beside its model on the times the
	// software decided at; Intended beside its model on the trace's own
	// times (scaled), only for software on its own clock; Log beside the
	// exact sliding-window log with the trace's rule on its times.
	Model    ProductAgreement  `json:"model"`
	Intended *ProductAgreement `json:"intended,omitempty"`
	Log      ProductAgreement  `json:"log"`
	// Differences lists the first requests the software and its model
	// decide differently (at most MaxLiveDifferences).
	Differences []LiveDifference `json:"differences,omitempty"`
	DurationNS  int64            `json:"duration_ns"`
}

// MaxLiveDifferences bounds LiveProduct.Differences.
const MaxLiveDifferences = 20

// ProductAgreement compares the software's answers with another
// decider's.
type ProductAgreement struct {
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
func (a ProductAgreement) Disagree() int64 { return a.SoftwareOnly + a.OtherOnly }

// Percent is the agreement in percent.
func (a ProductAgreement) Percent() float64 {
	n := a.Agree + a.Disagree()
	if n == 0 {
		return 100
	}
	return 100 * float64(a.Agree) / float64(n)
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
