package traces

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"
)

// Timestamps in a layout of the user's (Options.TSFormat).
//
// The layout is Go's reference layout ("02.01.2006 03:04 PM", the way
// time.Parse takes it), or, when it holds a '%', a strftime layout
// ("%d.%m.%Y %I:%M %p"), translated to Go's once, when the reader is made
// (see strftimeLayout for the directives). A layout must give the year,
// the month and the day; an hour of 12 needs its AM/PM.
//
// A time without a zone in the layout is UTC. With a numeric zone (Go's
// -0700 or -07:00, strftime's %z) the time is converted to UTC by its
// offset. A zone abbreviation (Go's MST, strftime's %Z) must be UTC or
// GMT: any other is an error rather than a guess (an abbreviation such as
// CST names several zones, and what the machine's local zone knows would
// make the figures depend on the machine).
//
// The time is read to the nanosecond as integers (time.Parse reads the
// fraction of a second as digits; one finer than a nanosecond is an error,
// as in the other forms of ts), and
// must not be before 1970 or past the int64 nanosecond range (2262). A
// weekday name (%a, Mon) is read but not checked against the date; a year
// of two digits (%y, 06) is one of 1969 to 2068.

// tsLayout is a compiled Options.TSFormat.
type tsLayout struct {
	given  string // as the user wrote it, for messages
	layout string // Go's layout
	zone   bool   // the layout holds a zone abbreviation
}

// Message suffixes for a time that does not fit the layout, to follow
// `ts "<text>" `.
const (
	layoutErrSyntax = "does not fit -ts-format %q"
)

// parseTSFormat compiles the value of Options.TSFormat, "" being nil.
func parseTSFormat(s string) (*tsLayout, error) {
	if s == "" {
		return nil, nil
	}
	l := &tsLayout{given: s, layout: s}
	if strings.Contains(s, "%") {
		var err error
		if l.layout, err = strftimeLayout(s); err != nil {
			return nil, err
		}
	}
	if err := checkLayout(s, l.layout); err != nil {
		return nil, err
	}
	l.zone = strings.Contains(l.layout, "MST")
	return l, nil
}

// checkLayout refuses a Go layout that cannot tell a time: one without
// the year, month or day, or with an hour of 12 and no AM/PM. It formats a
// time with the layout and reads it back.
func checkLayout(given, layout string) error {
	probe := time.Date(2017, 11, 28, 16, 37, 49, 0, time.UTC) // 4 PM: an hour of 12 without AM/PM reads back 4
	back, err := time.Parse(layout, probe.Format(layout))
	if err != nil {
		return fmt.Errorf("traces: -ts-format %q cannot be read back: %v", given, err)
	}
	var missing []string
	if back.Year() != probe.Year() {
		missing = append(missing, "the year")
	}
	if back.Month() != probe.Month() {
		missing = append(missing, "the month")
	}
	if back.Day() != probe.Day() && back.YearDay() != probe.YearDay() {
		missing = append(missing, "the day")
	}
	if len(missing) > 0 {
		return fmt.Errorf("traces: -ts-format %q does not give %s (Go layouts write them as in 2006-01-02, strftime as %%Y-%%m-%%d)",
			given, strings.Join(missing, ", "))
	}
	if back.Hour() == 4 {
		return fmt.Errorf("traces: -ts-format %q has an hour of 12 and no AM/PM (Go's PM, strftime's %%p); for an hour of 24 write 15 (strftime %%H)", given)
	}
	return nil
}

// parse reads the time s in the layout, to Unix nanoseconds. msg is "" on
// success, else what follows `ts "<text>" ` in a message.
//
// s is read in place: the string time.Parse sees shares s's bytes, and
// neither it nor the time made of it outlives the call.
func (l *tsLayout) parse(s []byte) (ns int64, msg string) {
	if len(s) == 0 {
		return 0, tsErrEmpty
	}
	t, err := time.ParseInLocation(l.layout, unsafe.String(&s[0], len(s)), time.UTC)
	if err != nil {
		return 0, l.misfit(err)
	}
	if finerThanNS(s) {
		return 0, tsErrFraction
	}
	if l.zone {
		if name, offset := t.Zone(); offset == 0 && name != "UTC" && name != "GMT" {
			return 0, fmt.Sprintf("has the time zone %q, whose offset is not known here: give the offset (-0700, strftime %%z) or write the times in UTC", name)
		}
	}
	ns, msg = unixNS(t.Unix(), int64(t.Nanosecond()))
	switch msg {
	case dateErrNegative:
		return 0, tsErrNegative + " (before 1970)"
	case dateErrOverflow:
		return 0, tsErrOverflow
	}
	return ns, ""
}

// finerThanNS reports whether s holds a fraction of a second finer than a
// nanosecond: a '.' or ',' then more than 9 digits, one past the ninth not
// 0 (which time.Parse would drop).
func finerThanNS(s []byte) bool {
	for i, c := range s {
		if c != '.' && c != ',' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			if j-i > 9 && s[j] != '0' {
				return true
			}
			j++
		}
	}
	return false
}

// misfit says how a time does not fit the layout, from time.Parse's
// error: where it stopped, or what was out of range.
func (l *tsLayout) misfit(err error) string {
	msg := fmt.Sprintf(layoutErrSyntax, l.given)
	var pe *time.ParseError
	if !errors.As(err, &pe) {
		return msg
	}
	switch {
	case pe.Message != "": // ": day out of range", ": extra text: ..."
		return msg + pe.Message
	case pe.ValueElem != "":
		at := pe.ValueElem
		if len(at) > 24 {
			at = at[:24] + "..."
		}
		return msg + fmt.Sprintf(": cannot read %q", at)
	case pe.LayoutElem != "":
		return msg + ": the time ends too soon"
	}
	return msg
}

// strftimeDirectives are the strftime directives a layout may hold, with
// the Go layout of each.
var strftimeDirectives = map[byte]string{
	'Y': "2006", 'y': "06", 'm': "01", 'd': "02", 'e': "_2", 'j': "002",
	'H': "15", 'I': "03", 'M': "04", 'S': "05", 'p': "PM",
	'b': "Jan", 'h': "Jan", 'B': "January", 'a': "Mon", 'A': "Monday",
	'z': "-0700", 'Z': "MST",
	'F': "2006-01-02", 'T': "15:04:05", 'R': "15:04", 'D': "01/02/06",
}

// strftimeNames lists strftimeDirectives for messages.
const strftimeNames = "%Y %y %m %d %e %j %H %I %M %S %f %p %b %h %B %a %A %z %Z %F %T %R %D %%"

// strftimeLayout translates a strftime layout to Go's. Besides
// strftimeDirectives it takes %f, the fraction of a second (any number of
// digits, to the nanosecond), after a '.' or ',', and %% for a '%'. Any
// other directive is an error naming it, and so is literal text that Go
// would read as part of a time ("1", "Jan", "PM": Go's layouts cannot
// escape them).
func strftimeLayout(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			j := strings.IndexByte(s[i:], '%')
			if j < 0 {
				j = len(s) - i
			}
			lit := s[i : i+j]
			if goLayoutText(lit) {
				return "", fmt.Errorf("traces: -ts-format %q: the text %q would read as part of the time in Go's layout, which cannot escape it; match it in -pattern instead, or write a Go layout", s, lit)
			}
			b.WriteString(lit)
			i += j - 1
			continue
		}
		if i+1 == len(s) {
			return "", fmt.Errorf("traces: -ts-format %q ends in a lone %%", s)
		}
		i++
		switch d := s[i]; {
		case d == '%':
			b.WriteByte('%')
		case d == 'f':
			if prev := b.String(); !strings.HasSuffix(prev, ".") && !strings.HasSuffix(prev, ",") {
				return "", fmt.Errorf("traces: -ts-format %q: %%f (a fraction of a second) must follow a '.' or ','", s)
			}
			b.WriteString("999999999")
		default:
			g, ok := strftimeDirectives[d]
			if !ok && d == 's' {
				return "", fmt.Errorf("traces: -ts-format %q: unsupported strftime directive %%s; integer Unix times need no -ts-format (their unit is -ts-unit's)", s)
			}
			if !ok {
				return "", fmt.Errorf("traces: -ts-format %q: unsupported strftime directive %%%c (supported: %s)", s, d, strftimeNames)
			}
			b.WriteString(g)
		}
	}
	return b.String(), nil
}

// goLayoutText reports whether literal text holds something Go's layouts
// read as an element of a time: formatted with a time unlike the reference
// time in every element, it changes.
func goLayoutText(lit string) bool {
	probe := time.Date(2017, 11, 28, 9, 37, 49, 123456789, time.FixedZone("XYZ", 3*3600+1800))
	return probe.Format(lit) != lit
}
