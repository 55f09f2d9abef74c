package driver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"ratebench/live"
)

// AnswerTimeout bounds one answer of a driver to a request (its loading of
// its runtime and library has childproc.StartTimeout: Proc.Ready).
const AnswerTimeout = 30 * time.Second

// LineSession is a live session with a driver process that reads one
// request a line, "KEY T" with T the request's time in ns (and " COST",
// at least 1, when Costs), and answers "1" (admitted) or "0": the protocol
// of the Ruby and PHP drivers. Once a request failed the answers may be
// out of step: the session refuses every later one, saying why.
type LineSession struct {
	live.Plain
	P      *Proc
	Costs  bool // the lines carry the request's cost
	broken error
}

func (s *LineSession) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	if s.broken != nil {
		return live.Decision{}, s.broken
	}
	if err := ctx.Err(); err != nil {
		return live.Decision{}, err
	}
	if q.Key == "" || strings.ContainsAny(q.Key, " \r\n") {
		return live.Decision{}, fmt.Errorf("key %q: the driver's lines take a key without blanks", q.Key)
	}
	line := q.Key + " " + strconv.FormatInt(q.T, 10)
	if s.Costs {
		line += " " + strconv.FormatInt(max(q.Cost, 1), 10)
	}
	answer, err := s.P.Ask(ctx, line, AnswerTimeout)
	if err == nil && answer != "1" && answer != "0" {
		err = fmt.Errorf("the driver answered %q", answer)
	}
	if err != nil {
		s.broken = fmt.Errorf("an earlier request failed: %w", err)
		return live.Decision{}, err
	}
	return live.Decision{Admit: answer == "1", At: q.T}, nil
}

// Close kills the driver and waits for it; it is safe to call more than
// once.
func (s *LineSession) Close() error {
	s.broken = errors.New("the session is closed")
	return s.P.Stop()
}
