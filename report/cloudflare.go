package report

import (
	"fmt"
	"io"
	"strings"

	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/summary"
)

// Cloudflare's published figures for the sliding-window counter, over
// summary.CloudflareRequests requests from summary.CloudflareSources
// sources: 0.003% of requests decided differently from an exact count, no
// false positives, 3 sources let through slightly above the threshold, a
// 6% average gap between the real and the approximate rate.
const (
	cfDisagreeRate = 0.00003
	cfSourcesOver  = 3
	cfMeanGap      = 0.06
)

// CloudflareREADME writes the Markdown page that sets a population
// experiment's measured figures beside Cloudflare's published ones: the
// sliding-window counter against the exact log, per counting policy.
//
// search, if not nil, is a search of the mechanism's space (the folder's
// search/summary.json), whose answer the page gives after the figures.
//
// timing is the full run's timing sentence (CloudflareTiming), "" for none.
func CloudflareREADME(w io.Writer, s *summary.Summary, timing, command string, search *summary.CloudflareSearch) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The Cloudflare experiment, reproduced\n\n")
	fmt.Fprintf(&b, "Cloudflare published one accuracy figure for the sliding-window counter: over %s requests from %s sources, "+
		"%s of requests were decided differently from an exact count, with no false positives; 3 sources were let through "+
		"slightly above the threshold, and the real and approximate rates differed by 6%% on average.\n\n",
		numfmt.Count(summary.CloudflareRequests), numfmt.Count(summary.CloudflareSources), numfmt.Percent(cfDisagreeRate))
	fmt.Fprintf(&b, "This folder replays a synthetic population through the exact sliding log and the counter:\n\n%s\n", markup.MarkdownCodeBlock(command))
	fmt.Fprintf(&b, "Trace: %s requests from %s sources (%s). Rule %s.",
		numfmt.Count(s.Trace.Requests), numfmt.Count(s.Trace.Keys), markup.MarkdownCode(escape.Visible(s.Trace.Path), false), escape.Markdown(strings.Join(s.Config.Rules, ", ")))
	b.WriteString(timing + "\n\n")

	fmt.Fprintf(&b, "| figure | Cloudflare | count all | count accepted (independent) | count accepted (shadow) |\n|---|---|---|---|---|\n")
	all := find(s, "all", "independent", "counter")
	ind := find(s, "accepted", "independent", "counter")
	sh := find(s, "accepted", "shadow", "counter")
	row := func(name, cf string, f func(r *summary.Run) string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, cf, cell(all, f), cell(ind, f), cell(sh, f))
	}
	row("requests decided differently", numfmt.Percent(cfDisagreeRate), func(r *summary.Run) string { return numfmt.Percent(r.DisagreeRate) })
	row("let through (over; false negatives)", "—", func(r *summary.Run) string {
		return fmt.Sprintf("%s (%s)", numfmt.Count(r.Over), numfmt.Percent(r.OverRate))
	})
	row("refused (under; false positives)", "0", func(r *summary.Run) string {
		return fmt.Sprintf("%s (%s)", numfmt.Count(r.Under), numfmt.Percent(r.UnderRate))
	})
	row("sources with a request let through", fmt.Sprint(cfSourcesOver), func(r *summary.Run) string { return numfmt.Count(r.KeysOver) })
	row("sources with a refused request", "0", func(r *summary.Run) string { return numfmt.Count(r.KeysUnder) })
	row("sources whose admitted burst exceeded L", "—", func(r *summary.Run) string {
		if r.Burst == nil {
			return "— (shadow)"
		}
		return numfmt.Count(r.Burst.KeysOverL)
	})
	row("worst admitted burst ÷ L", "\"slightly above\"", func(r *summary.Run) string {
		if r.Burst == nil {
			return "— (shadow)"
		}
		return fmt.Sprintf("%.3g", r.Burst.Ratio)
	})
	row("mean gap, approximate vs real rate", numfmt.Percent(cfMeanGap), func(r *summary.Run) string {
		if r.RateError == nil {
			return "— (needs a shared history)"
		}
		return numfmt.Percent(r.RateError.MeanRel)
	})

	fmt.Fprintf(&b, "\n## Where the figures differ, and why\n\n")
	fmt.Fprintf(&b, "- Cloudflare did not publish its thresholds, periods, traffic or counting method. The population here is "+
		"synthetic: Poisson sources whose rates follow a Pareto distribution (see `ratebench gen -list`), so most stay well "+
		"under the limit and a few cross it. Another rate distribution or rule moves every figure; rerun with your own "+
		"(`ratebench cloudflare -h`).\n")
	if search != nil {
		fmt.Fprintf(&b, "- These figures are of the plain counter and log, with no mitigation timeout. Which traffic and mechanism "+
			"give the published figures is the search below.\n")
	}
	fmt.Fprintf(&b, "- \"Count all\" counts every request, admitted or not, as Cloudflare describes; \"count accepted\" counts only "+
		"admitted ones, as most libraries do. Under count accepted the counter's own decisions feed back into its state "+
		"(independent), or it is made to share the log's history (shadow), which isolates the estimate's error.\n")
	if all != nil && all.Under > 0 {
		fmt.Fprintf(&b, "- Cloudflare saw no false positives; here the counter refused %s requests the exact log admitted "+
			"(%s sources). The counter assumes the previous window's requests were spread evenly; sources whose "+
			"traffic clusters early in a window are charged for requests that the exact log has already let expire.\n",
			numfmt.Count(all.Under), numfmt.Count(all.KeysUnder))
	}
	fmt.Fprintf(&b, "- The \"mean gap\" is the mean of |estimate − exact| / exact over requests whose exact count is positive, "+
		"measured where the counter and the log share one history (shadow mode, or count all). Cloudflare's average may "+
		"weigh sources or periods differently; it did not say.\n")
	fmt.Fprintf(&b, "\nThe full metrics are in [summary.json](summary.json)")
	if timing != "" {
		fmt.Fprintf(&b, "; the run writes its timings to perf.json beside it, which is kept out of the repository (they are one machine's)")
	}
	fmt.Fprintf(&b, ".\n")
	if search != nil {
		b.WriteString("\n")
		if err := cloudflareSearch(&b, search, "##", "search/"); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CloudflareTiming is the page's sentence on the run's timing, with its
// leading space: "" for a run that was not timed.
func CloudflareTiming(perf summary.Perf) string {
	if perf.Seconds <= 0 {
		return ""
	}
	return fmt.Sprintf(" Wall time %.0f s (%.2fM requests/s), peak RSS %s.", perf.Seconds, perf.RequestsPerSecond/1e6, numfmt.BytesIEC(perf.MaxRSSBytes))
}

func find(s *summary.Summary, count, mode, alg string) *summary.Run {
	for i := range s.Runs {
		r := &s.Runs[i]
		if r.Count == count && r.Mode == mode && r.Algorithm == alg {
			return r
		}
	}
	return nil
}

func cell(r *summary.Run, f func(*summary.Run) string) string {
	if r == nil {
		return "not run"
	}
	return f(r)
}
