package traces

import (
	"math"
)

// Parsing of the text forms of ts and cost shared by the CSV and JSON lines
// readers. The parsers work on bytes and never allocate; on failure they
// return a constant message suffix that the caller formats with the value
// (only then is anything allocated).

// Message suffixes for a bad ts, to follow `ts "<text>" `.
const (
	tsErrSyntax   = "is not a number, decimal seconds or RFC 3339 time"
	tsErrNegative = "is negative"
	tsErrOverflow = "overflows int64 nanoseconds"
	tsErrFraction = "has more than 9 fraction digits (finer than a nanosecond)"
	tsErrRFC3339  = "is not a valid RFC 3339 time"
	tsErrEmpty    = "empty ts"
)

// Message suffixes for a bad cost, to follow `cost "<text>" `.
const (
	costErrSyntax   = "is not an integer"
	costErrPositive = "is not positive"
	costErrOverflow = "exceeds the largest cost, 2147483647"
)

// parseUint parses a non-empty run of ASCII digits. ok is false if s holds
// anything else; overflow is true if the value does not fit an int64.
func parseUint(s []byte) (v int64, ok, overflow bool) {
	if len(s) == 0 {
		return 0, false, false
	}
	// The first 18 digits cannot overflow: no checks for them.
	head := s[:min(len(s), 18)]
	for _, c := range head {
		d := c - '0'
		if d > 9 {
			return 0, false, false
		}
		v = v*10 + int64(d)
	}
	const cutoff = math.MaxInt64 / 10
	for _, c := range s[len(head):] {
		d := c - '0'
		if d > 9 {
			return 0, false, false
		}
		if v > cutoff || (v == cutoff && d > math.MaxInt64%10) {
			overflow = true
			continue // keep checking the syntax
		}
		v = v*10 + int64(d)
	}
	return v, true, overflow
}

func isDigits(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseTS parses a text timestamp to nanoseconds. The forms are:
//
//   - an integer, a count of unit nanoseconds;
//   - decimal seconds "S.F" with at least one digit on each side, read
//     exactly: digits past the ninth fraction digit must be zeros;
//   - an RFC 3339 time such as "2024-01-02T03:04:05.123Z" or with an offset
//     "+01:00".
//
// A negative time, or one past the int64 nanosecond range (year 2262), is an
// error. msg is "" on success, otherwise one of the tsErr* suffixes.
func parseTS(s []byte, unit int64) (ns int64, msg string) {
	if len(s) == 0 {
		return 0, tsErrEmpty
	}
	if s[0] == '-' {
		if isDigits(s[1:]) || isDecimal(s[1:]) {
			return 0, tsErrNegative
		}
		return 0, tsErrSyntax
	}
	if v, ok, overflow := parseUint(s); ok {
		if unit == 1 && !overflow {
			return v, ""
		}
		if overflow || v > math.MaxInt64/unit {
			return 0, tsErrOverflow
		}
		return v * unit, ""
	}
	if isDecimal(s) {
		return parseDecimalSeconds(s)
	}
	if len(s) >= 11 && s[4] == '-' && isDigits(s[:4]) {
		return parseRFC3339(s)
	}
	return 0, tsErrSyntax
}

// isDecimal reports whether s is digits '.' digits.
func isDecimal(s []byte) bool {
	for i, c := range s {
		if c == '.' {
			return isDigits(s[:i]) && isDigits(s[i+1:])
		}
	}
	return false
}

// parseDecimalSeconds parses digits '.' digits as exact nanoseconds: the
// integer part and the fraction are parsed as integers, never as a float.
func parseDecimalSeconds(s []byte) (int64, string) {
	dot := 0
	for s[dot] != '.' {
		dot++
	}
	secs, _, overflow := parseUint(s[:dot])
	if overflow {
		return 0, tsErrOverflow
	}
	frac, msg := parseFraction(s[dot+1:])
	if msg != "" {
		return 0, msg
	}
	if secs > (math.MaxInt64-frac)/1e9 {
		return 0, tsErrOverflow
	}
	return secs*1e9 + frac, ""
}

// parseFraction turns the digits after a decimal point into nanoseconds.
// Digits past the ninth must be zeros.
func parseFraction(f []byte) (int64, string) {
	var ns int64
	for i, c := range f {
		if i >= 9 {
			if c != '0' {
				return 0, tsErrFraction
			}
			continue
		}
		ns = ns*10 + int64(c-'0')
	}
	for i := len(f); i < 9; i++ {
		ns *= 10
	}
	return ns, ""
}

// atoiN parses exactly the digits of s (short, fixed width), or -1.
func atoiN(s []byte) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// parseRFC3339 parses YYYY-MM-DDTHH:MM:SS[.F]Z or ...±HH:MM ('t' and 'z'
// accepted too) without allocating.
func parseRFC3339(s []byte) (int64, string) {
	// 2006-01-02T15:04:05Z is 20 bytes, the shortest valid form.
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
		s[13] != ':' || s[16] != ':' {
		return 0, tsErrRFC3339
	}
	year, month, day := atoiN(s[0:4]), atoiN(s[5:7]), atoiN(s[8:10])
	hour, minute, sec := atoiN(s[11:13]), atoiN(s[14:16]), atoiN(s[17:19])
	if year < 0 || month < 1 || month > 12 || day < 1 || day > 31 ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return 0, tsErrRFC3339
	}
	frac, rest, bad, msg := cutFraction(s[19:])
	switch {
	case bad:
		return 0, tsErrRFC3339
	case msg != "":
		return 0, msg
	}
	var offset int64 // seconds east of UTC
	switch {
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, om := atoiN(rest[1:3]), atoiN(rest[4:6])
		if oh < 0 || oh > 23 || om < 0 || om > 59 {
			return 0, tsErrRFC3339
		}
		offset = int64(oh*3600 + om*60)
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return 0, tsErrRFC3339
	}
	if day > daysIn(month, year) { // February 30th and the like
		return 0, tsErrRFC3339
	}
	unix := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec) - offset
	if unix < 0 {
		return 0, tsErrNegative
	}
	if unix > (math.MaxInt64-frac)/1e9 {
		return 0, tsErrOverflow
	}
	return unix*1e9 + frac, ""
}

// parseCost parses a cost: empty means 1, otherwise a positive integer up
// to MaxCost. msg is "" on success, otherwise one of the costErr*
// suffixes.
func parseCost(s []byte) (int64, string) {
	if len(s) == 0 {
		return 1, ""
	}
	neg := s[0] == '-'
	digits := s
	if neg {
		digits = s[1:]
	}
	v, ok, overflow := parseUint(digits)
	switch {
	case !ok:
		return 0, costErrSyntax
	case neg || v == 0:
		return 0, costErrPositive
	case overflow || v > MaxCost:
		return 0, costErrOverflow
	}
	return v, ""
}

// mulUnit multiplies a non-negative integer timestamp by its unit,
// reporting overflow.
func mulUnit(v, unit int64) (int64, bool) {
	if v > math.MaxInt64/unit {
		return 0, false
	}
	return v * unit, true
}

// cutFraction parses the optional ".digits" (a fraction of a second) at the
// start of s, exactly, returning it in nanoseconds and what follows it. bad
// is true for a '.' with no digit after it; msg is parseFraction's reason
// when the digits are finer than a nanosecond.
func cutFraction(s []byte) (frac int64, rest []byte, bad bool, msg string) {
	if len(s) == 0 || s[0] != '.' {
		return 0, s, false, ""
	}
	i := 1
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 1 {
		return 0, s, true, ""
	}
	frac, msg = parseFraction(s[1:i])
	return frac, s[i:], false, msg
}

// daysIn returns the number of days of a month (1 to 12) of a year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the number of days from 1970-01-01 to the date
// (proleptic Gregorian calendar, year >= 0).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := m + 9
	if m > 2 {
		mp = m - 3
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
