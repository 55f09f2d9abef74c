package traces

import "fmt"

// refuseLineOptions refuses the options of FormatRegex and of the
// delimited formats that a log of its own form (what) does not take.
func (o Options) refuseLineOptions(what string) error {
	switch {
	case o.Pattern != "":
		return fmt.Errorf("traces: -pattern applies to -format regex, not to %s", what)
	case o.TSFormat != "":
		return fmt.Errorf("traces: -ts-format does not apply to %s, whose times have a form of their own", what)
	}
	return nil
}
