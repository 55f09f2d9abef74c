package live

import (
	"context"
	"strings"
	"testing"
)

// lateBlocker answers the late block's burst: two admitted, then refusals,
// the first carrying a block's start at blockAt after its time when tells.
type lateBlocker struct {
	n       int
	tells   bool
	blockAt int64
}

func (s *lateBlocker) Decide(_ context.Context, q Request) (Decision, error) {
	s.n++
	d := Decision{Admit: s.n <= 2, At: q.T}
	if s.n == 3 && s.tells {
		d.Block, d.BlockAt = true, q.T+s.blockAt
	}
	return d, nil
}
func (*lateBlocker) Settle(context.Context, []Decision) error { return nil }
func (*lateBlocker) Analyze(context.Context, *Analysis) error { return nil }
func (*lateBlocker) Close() error                             { return nil }

// CheckLateBlock passes software that tells the block's start a round trip
// after its refusal, and fails one that does not tell it or tells it
// before the refusal.
func TestCheckLateBlock(t *testing.T) {
	if err := CheckLateBlock(context.Background(), &lateBlocker{tells: true, blockAt: 1e6}); err != nil {
		t.Errorf("a block told 1 ms later: %v", err)
	}
	for _, s := range []*lateBlocker{{}, {tells: true, blockAt: -1}} {
		if err := CheckLateBlock(context.Background(), s); err == nil || !strings.Contains(err.Error(), "request 2") {
			t.Errorf("%+v: err = %v, want the third request named", s, err)
		}
	}
}
