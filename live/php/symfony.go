package php

import (
	"context"
	_ "embed"
	"fmt"
	"ratebench/live/driver"
	"slices"
	"strconv"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/live"
)

//go:embed symfony.php
var symfonyScript []byte

// SymfonyRequires is what the symfony target needs installed.
const SymfonyRequires = "the Debian packages php-cli and php-symfony-rate-limiter (apt-get install php-cli php-symfony-rate-limiter)"

var symfonyLib = library{name: "symfony", script: symfonyScript, file: "symfony.php", pkg: "php-symfony-rate-limiter", requires: SymfonyRequires}

// symfonyVariants are the target's variants: the policies, the fixed
// window the default.
var symfonyVariants = []string{"", "policy=sliding_window", "policy=token_bucket"}

func init() {
	live.Register(live.Target{
		Name:     "symfony",
		About:    "Symfony's RateLimiter (Debian php-symfony-rate-limiter) on an InMemoryStorage in a PHP driver, consume(cost) on the trace's microtime",
		Requires: SymfonyRequires,
		Driven:   true,
		Costs:    true,
		Variants: symfonyVariants,
		Checks:   symfonyVariants,
		Version: func(ctx context.Context, o live.Options) (string, error) {
			return symfonyLib.version(ctx, o, "fixed_window", "1", "1")
		},
		Model: SymfonyModel,
		Start: StartSymfony,
	})
}

// SymfonyModel is the model of o.Variant's policy, with every deviation.
func SymfonyModel(r algorithms.Rule, o live.Options) (string, error) {
	if !slices.Contains(symfonyVariants, o.Variant) {
		return "", fmt.Errorf("live symfony: no variant %q (known: %q)", o.Variant, symfonyVariants)
	}
	if o.Variant == "" {
		return "symfony", nil
	}
	return "symfony:" + o.Variant, nil
}

// StartSymfony runs the driver with the factory's configuration for rule
// r: the policy, limit L, interval W in seconds, and for the token bucket
// the model's refill (amount tokens every interval).
func StartSymfony(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
	spec, err := SymfonyModel(r, o)
	if err != nil {
		return nil, err
	}
	l, err := algorithms.New(spec, r)
	if err != nil {
		return nil, fmt.Errorf("live symfony: %w", err)
	}
	m := l.(*products.Symfony)
	amount, every := m.Refill()
	p, v, err := symfonyLib.start(ctx, o, m.Policy(), strconv.FormatInt(r.L, 10), strconv.FormatInt(r.W/1e9, 10),
		strconv.FormatInt(every, 10), strconv.FormatInt(amount, 10))
	if err != nil {
		return nil, err
	}
	o.Logf("symfony: %s, policy %s", v, m.Policy())
	return &driver.LineSession{P: p, Costs: true}, nil
}
