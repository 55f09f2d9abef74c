# frozen_string_literal: true

# ratebench's driver for rack-attack: the real Rack::Attack middleware with
# one throttle, limit L and period W seconds, on an
# ActiveSupport::Cache::MemoryStore, its clock driven by the replay.
#
# Arguments: the limit L and the window W in nanoseconds. It prints
# "ready VERSIONS" once loaded, then reads one request a line, "KEY T" (T
# the request's time in nanoseconds since the epoch), sets Time.now to T
# and answers "1" when the middleware passes the request to the app, "0"
# when it throttles it (429), anything else an error.

require "rack"
require "rack/mock"
require "active_support"
require "active_support/cache"
require "rack/attack"
require "rack/attack/version"

limit = Integer(ARGV.fetch(0))
window_ns = Integer(ARGV.fetch(1))

# Time.now is the replay's: the throttle's cache key (Time.now.to_i) and
# the store's entries (their creation and expiry) read it.
$ratebench_now = nil
module RatebenchClock
  def now(*args, **kwargs)
    $ratebench_now || super
  end
end
Time.singleton_class.prepend(RatebenchClock)

Rack::Attack.cache.store = ActiveSupport::Cache::MemoryStore.new
# period: W in seconds, as the README writes it (period: 60); the throttle
# keeps period.to_i.
Rack::Attack.throttle("ratebench", limit: limit, period: Rational(window_ns, 1_000_000_000)) do |req|
  req.get_header("HTTP_X_RATEBENCH_KEY")
end
app = Rack::Attack.new(->(_env) { [200, { "content-type" => "text/plain" }, ["ok"]] })

$stdout.sync = true
puts "ready rack-attack #{Rack::Attack::VERSION}, ActiveSupport #{ActiveSupport::VERSION::STRING}, Rack #{Rack.release}, Ruby #{RUBY_VERSION}"
$stdin.each_line do |line|
  key, _, t = line.chomp.rpartition(" ")
  ns = Integer(t)
  $ratebench_now = Time.at(ns.div(1_000_000_000), ns % 1_000_000_000, :nsec)
  status, = app.call(Rack::MockRequest.env_for("/", "HTTP_X_RATEBENCH_KEY" => key))
  case status
  when 200 then puts "1"
  when 429 then puts "0"
  else puts "error: status #{status}"
  end
end
