package php

import (
	"context"
	_ "embed"
	"fmt"
	"ratebench/live/driver"
	"strconv"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/live"
)

//go:embed laravel.php
var laravelScript []byte

// LaravelRequires is what the laravel target needs installed.
const LaravelRequires = "the Debian packages php-cli and php-laravel-framework (apt-get install php-cli php-laravel-framework)"

var laravelLib = library{name: "laravel", script: laravelScript, file: "laravel.php", pkg: "php-laravel-framework", requires: LaravelRequires}

func init() {
	live.Register(live.Target{
		Name:     "laravel",
		About:    "Laravel's throttle:L,M middleware (ThrottleRequests, Debian php-laravel-framework) on the array cache store in a PHP driver, Carbon's now the trace's",
		Requires: LaravelRequires,
		Driven:   true,
		Variants: []string{""},
		Checks:   []string{""},
		Version: func(ctx context.Context, o live.Options) (string, error) {
			return laravelLib.version(ctx, o, "1", "1")
		},
		Model: LaravelModel,
		Start: StartLaravel,
	})
}

// LaravelModel is the model laravel, with every deviation.
func LaravelModel(r algorithms.Rule, o live.Options) (string, error) {
	if o.Variant != "" {
		return "", fmt.Errorf("live laravel: no variant %q (it has none)", o.Variant)
	}
	return "laravel", nil
}

// StartLaravel runs the driver with the middleware's parameters for rule
// r, throttle:L,M with M = W in minutes, as a route passes them.
func StartLaravel(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
	if _, err := LaravelModel(r, o); err != nil {
		return nil, err
	}
	if _, err := algorithms.New("laravel", r); err != nil {
		return nil, fmt.Errorf("live laravel: %w", err)
	}
	m := products.LaravelMinutes(r)
	p, v, err := laravelLib.start(ctx, o, strconv.FormatInt(r.L, 10), m)
	if err != nil {
		return nil, err
	}
	o.Logf("laravel: %s, throttle:%d,%s", v, r.L, m)
	return &driver.LineSession{P: p}, nil
}
