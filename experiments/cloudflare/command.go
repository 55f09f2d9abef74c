package cloudflare

import (
	"strings"

	"ratebench/compare/resultsdir"
	"ratebench/internal/escape"
	"ratebench/summary"
)

// Flag is a flag given to ratebench cloudflare that changes the figures
// (not where they are written or how fast): its name and its value as it
// reads back. The pages and the search's summary record the command that
// reproduces them from these.
type Flag struct{ Name, Value string }

// runCommand is the command that reproduces a run of the experiment with
// flags, each value a shell word (quoted only if it needs to be).
func runCommand(flags []Flag) string {
	command := "ratebench cloudflare"
	for _, f := range flags {
		command += " -" + f.Name + " " + escape.ShellWord(f.Value)
	}
	return strings.TrimSpace(command)
}

// searchCommand is the command that reproduces a search with flags, each
// value in single quotes (escape.ShellWord's quoting, which a word needing
// none goes without, is added): the form the committed search summaries
// record their commands in.
func searchCommand(flags []Flag) string {
	command := "ratebench cloudflare"
	for _, f := range flags {
		w := escape.ShellWord(f.Value)
		if !strings.HasPrefix(w, "'") && !strings.HasPrefix(w, "$'") {
			w = "'" + w + "'"
		}
		command += " -" + f.Name + " " + w
	}
	return command
}

// commandOf returns the command that replays the experiment of sum: the
// flags whose values differ from the defaults, read back from the
// generated population's parameters and the rule.
func commandOf(sum *summary.Summary) string {
	command := "ratebench cloudflare"
	defaults := map[string]string{}
	for _, kv := range specParams(Published().spec()) {
		k, v, _ := strings.Cut(kv, "=")
		defaults[k] = v
	}
	for _, kv := range specParams(strings.TrimPrefix(sum.Trace.Path, resultsdir.GenPrefix)) {
		k, v, _ := strings.Cut(kv, "=")
		if d, ok := defaults[k]; !ok || d != v {
			command += " -" + k + " " + escape.ShellWord(v)
		}
	}
	if len(sum.Config.Rules) == 1 && sum.Config.Rules[0] != Published().Rule.String() {
		command += " -rule " + escape.ShellWord(sum.Config.Rules[0])
	}
	return command
}

// specParams returns the parameters of a generator spec, "k=v" each.
func specParams(spec string) []string {
	_, params, _ := strings.Cut(spec, ":")
	return strings.Split(params, ",")
}
