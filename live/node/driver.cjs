'use strict'
// ratebench's driver of Node's rate limiters. For express-rate-limit it runs the real middleware,
// rateLimit({ windowMs, limit }), on a request and response of its own for
// each line of its input, and answers whether the middleware passed the
// request on (next()) or refused it (status 429).
//
//   node driver.cjs PREFIX memory WINDOW_MS LIMIT
//   node driver.cjs PREFIX redis WINDOW_MS LIMIT HOST:PORT
//
// and the other Node products' limiters, each on its options (JSON):
//
//   node driver.cjs PREFIX rate-limiter-flexible CONFIG
//   node driver.cjs PREFIX rate-limiter-flexible-redis CONFIG HOST:PORT
//   node driver.cjs PREFIX nestjs-throttler CONFIG
//   node driver.cjs PREFIX fastify-rate-limit CONFIG
//
// whose input lines are "KEY T COST" (the cost is sent to
// rate-limiter-flexible's consume only; the others take none), answered
// as the memory store's ("A" or "R") or, on Redis, the Redis store's
// ("A MS HOW"), each described at its driver below.
//
// PREFIX is the folder the npm packages are installed in (npm ci --prefix
// PREFIX). It prints "ready" once the limiter can take requests (with the
// Redis store, "ready SHA1": the SHA1 of the increment script the store
// loaded), then reads
// lines "KEY T" (T the request's trace time in ns, in order) and answers
// each with one line:
//
//   memory: "A" or "R". Date and the store's timers are fake
//     (@sinonjs/fake-timers), driven by the trace: before each request the
//     clock moves on to floor(T / 1 ms), running the store's interval
//     (its sweep of idle clients) at each instant it falls due on the way.
//     The limiter is made at the first request's instant.
//   redis: "A MS HOW" or "R MS HOW": the clock is the Redis server's,
//     which cannot be driven; MS is the millisecond the store's script read
//     it at (its PTTL, or its SET ... PX), HOW "=" when exact: PEXPIRETIME
//     of the key, read on the same connection right after the script,
//     less the time to expire the script returned (when - (when - now),
//     or (now + windowMs) - windowMs); "~" when the key was gone by then
//     (it expired in between), and MS is Redis TIME's millisecond read
//     just before the script.
//
// An error is answered "E message" and ends the driver.
const path = require('node:path')
const readline = require('node:readline')
const { createRequire } = require('node:module')

const [prefix, storeName, windowMsArg, limitArg, redisAddr] = process.argv.slice(2)
const load = createRequire(path.join(path.resolve(prefix), 'package.json'))
const { rateLimit } = load('express-rate-limit')

const windowMs = Number(windowMsArg)
const limit = Number(limitArg)

function fail(error) {
	process.stdout.write(`E ${String(error && error.stack ? error.stack : error).replace(/\s+/g, ' ')}\n`)
	process.exit(1)
}

// The middleware's request and response: what it reads and writes of them.
function exchange(key) {
	const request = { rateKey: key, ip: '127.0.0.1', method: 'GET', url: '/', originalUrl: '/', headers: {} }
	const headers = {}
	const response = {
		statusCode: 200,
		headersSent: false,
		writableEnded: false,
		setHeader(name, value) {
			headers[name.toLowerCase()] = value
			return this
		},
		getHeader(name) {
			return headers[name.toLowerCase()]
		},
		append(name, value) {
			headers[name.toLowerCase()] = value
			return this
		},
		status(code) {
			this.statusCode = code
			return this
		},
		send(body) {
			this.body = body
			this.writableEnded = true
			return this
		},
		once() {
			return this
		},
		on() {
			return this
		},
	}
	return { request, response }
}

// decide runs the middleware once for key: true when it passed the
// request on, false when it refused it.
async function decide(limiter, key) {
	const { request, response } = exchange(key)
	let passed = false
	let error
	await limiter(request, response, (err) => {
		passed = true
		error = err
	})
	if (error) throw error
	if (passed && response.statusCode === 200) return true
	if (!passed && response.statusCode === 429) return false
	throw new Error(`the middleware neither passed the request on nor refused it (next ${passed}, status ${response.statusCode})`)
}

const options = (store) => ({
	windowMs,
	limit,
	keyGenerator: (request) => request.rateKey,
	...(store ? { store } : {}),
})

// floorMs is floor(t / 1 ms) of a time in ns given as a decimal string.
function floorMs(t) {
	const ns = BigInt(t)
	let q = ns / 1000000n
	if (ns < 0n && q * 1000000n !== ns) q -= 1n
	return Number(q)
}

async function memoryDriver() {
	const FakeTimers = load('@sinonjs/fake-timers')
	let clock
	let limiter
	const answer = async (key, t) => {
		const now = floorMs(t)
		if (!clock) {
			// The store's own clock and timers: Date (Date.now, new Date)
			// and setInterval/clearInterval, its sweep. Nothing else is
			// faked: the driver's input and output run as they do.
			clock = FakeTimers.install({ now, toFake: ['Date', 'setInterval', 'clearInterval'] })
			limiter = rateLimit(options())
		} else if (now > clock.now) {
			clock.tick(now - clock.now)
		} else if (now < clock.now) {
			throw new Error(`time goes back: ${now} ms after ${clock.now} ms`)
		}
		return (await decide(limiter, key)) ? 'A' : 'R'
	}
	return { answer, ready: 'ready' }
}

async function redisDriver() {
	const { createClient } = load('redis')
	const { RedisStore } = load('rate-limit-redis')
	const client = createClient({ url: `redis://${redisAddr}` })
	client.on('error', fail)
	await client.connect()
	let clock
	const store = new RedisStore({
		// As rate-limit-redis's readme writes it for node-redis, with the
		// clock the script read (see above). The three commands go out
		// together, in order, on one connection.
		sendCommand: async (...args) => {
			if (args[0] !== 'EVALSHA') return client.sendCommand(args)
			const [before, reply, expiry] = await Promise.all([
				client.sendCommand(['TIME']),
				client.sendCommand(args),
				client.sendCommand(['PEXPIRETIME', args[3]]),
			])
			if (Number(expiry) >= 0) clock = `${BigInt(expiry) - BigInt(reply[1])} =`
			else clock = `${BigInt(before[0]) * 1000n + BigInt(before[1]) / 1000n} ~`
			return reply
		},
	})
	const limiter = rateLimit(options(store))
	const sha = await store.incrementScriptSha // loaded by the store's init, which the limiter calls
	const answer = async (key) => {
		clock = undefined
		const admit = await decide(limiter, key)
		if (clock === undefined) throw new Error('the store ran no EVALSHA')
		return `${admit ? 'A' : 'R'} ${clock}`
	}
	return { answer, ready: `ready ${sha}` }
}

// drivenClock returns a function that moves fake timers (those of
// toFake) to floor(T / 1 ms) before each request, installing them at the
// first request's instant and then calling made (which builds the
// limiter on the fake clock).
function drivenClock(toFake, made) {
	const FakeTimers = load('@sinonjs/fake-timers')
	let clock
	return (t) => {
		const now = floorMs(t)
		if (!clock) {
			clock = FakeTimers.install({ now, toFake })
			made()
		} else if (now > clock.now) {
			clock.tick(now - clock.now)
		} else if (now < clock.now) {
			throw new Error(`time goes back: ${now} ms after ${clock.now} ms`)
		}
	}
}

// rate-limiter-flexible's RateLimiterMemory, {points, duration,
// blockDuration} (seconds) as the configuration gives them; consume(key,
// cost) resolves (admitted) or rejects with a RateLimiterRes (refused).
// Date and the store's timers (each record's setTimeout) are driven.
async function rlfMemoryDriver(config) {
	const { RateLimiterMemory, RateLimiterRes } = load('rate-limiter-flexible')
	let limiter
	const move = drivenClock(['Date', 'setTimeout', 'clearTimeout'], () => {
		limiter = new RateLimiterMemory(config)
	})
	const answer = async (key, t, cost) => {
		move(t)
		try {
			await limiter.consume(key, cost)
			return 'A'
		} catch (res) {
			if (res instanceof RateLimiterRes) return 'R'
			throw res
		}
	}
	return { answer, ready: 'ready' }
}

// rate-limiter-flexible's RateLimiterRedis on node-redis (useRedisPackage),
// {points, duration, blockDuration} as the configuration gives them. The
// clock is Redis's: each answer is "A MS HOW" or "R MS HOW", MS the
// millisecond the store's script read (PEXPIRETIME of the key, read on the
// same connection right after the script, less the time to expire the
// script returned), HOW "=", or "~" when the key was gone by then and MS
// is Redis TIME's millisecond read just before the script; a refusal that
// blocked the key adds " B MS", the millisecond its block's SET ran (the
// key's PEXPIRETIME read after the store's MULTI, less the block's
// seconds), a round trip after the script.
async function rlfRedisDriver(config, addr) {
	const { createClient } = load('redis')
	const { RateLimiterRedis, RateLimiterRes } = load('rate-limiter-flexible')
	const client = createClient({ url: `redis://${addr}` })
	client.on('error', fail)
	await client.connect()
	let clock, block
	// A MULTI of the store's, whose SET KEY POINTS EX SECONDS (its block)
	// is followed, once it has run, by a read of the key's expiry.
	const watched = (target) => {
		const multi = target.multi()
		let key, secs
		const proxy = new Proxy(multi, {
			get(m, prop) {
				if (prop === 'set') {
					return (k, v, opts) => {
						key = k
						secs = opts && opts.EX
						m.set(k, v, opts)
						return proxy
					}
				}
				if (prop === 'exec') {
					return async (...args) => {
						const reply = await m.exec(...args)
						if (key !== undefined && secs > 0) {
							const expiry = await target.sendCommand(['PEXPIRETIME', key])
							block = `B ${BigInt(expiry) - BigInt(secs) * 1000n}`
						}
						return reply
					}
				}
				const v = m[prop]
				if (typeof v !== 'function') return v
				return (...args) => {
					const r = v.apply(m, args)
					return r === m ? proxy : r // a builder's chain goes on through the proxy
				}
			},
		})
		return proxy
	}
	// The store's client, its eval (the increment script) followed by the
	// reads of the clock and its MULTI watched; everything else is the
	// client's own.
	const storeClient = new Proxy(client, {
		get(target, prop) {
			if (prop === 'multi') return () => watched(target)
			if (prop === 'eval') {
				return async (script, options) => {
					const key = options.keys[0]
					const [before, reply, expiry] = await Promise.all([
						target.sendCommand(['TIME']),
						target.eval(script, options),
						target.sendCommand(['PEXPIRETIME', key]),
					])
					if (Number(expiry) >= 0) clock = `${BigInt(expiry) - BigInt(reply[1])} =`
					else clock = `${BigInt(before[0]) * 1000n + BigInt(before[1]) / 1000n} ~`
					return reply
				}
			}
			const v = target[prop]
			return typeof v === 'function' ? v.bind(target) : v
		},
	})
	const limiter = new RateLimiterRedis({ ...config, storeClient, useRedisPackage: true })
	const answer = async (key, t, cost) => {
		clock = block = undefined
		let admit
		try {
			await limiter.consume(key, cost)
			admit = true
		} catch (res) {
			if (!(res instanceof RateLimiterRes)) throw res
			admit = false
		}
		if (clock === undefined) throw new Error('the store ran no script')
		return `${admit ? 'A' : 'R'} ${clock}${block === undefined ? '' : ' ' + block}`
	}
	return { answer, ready: 'ready' }
}

// @nestjs/throttler's ThrottlerStorageService: increment(key, ttl, limit,
// blockDuration, 'default'), refused iff it answers isBlocked, as
// ThrottlerGuard.handleRequest does. Date and the sweep's setInterval are
// driven.
async function nestDriver(config) {
	load('reflect-metadata')
	const { ThrottlerStorageService } = load('@nestjs/throttler')
	let storage
	const move = drivenClock(['Date', 'setInterval', 'clearInterval'], () => {
		storage = new ThrottlerStorageService()
	})
	const answer = async (key, t) => {
		move(t)
		const { isBlocked } = await storage.increment(key, config.ttl, config.limit, config.blockDuration, 'default')
		return isBlocked ? 'R' : 'A'
	}
	return { answer, ready: 'ready' }
}

// @fastify/rate-limit registered on a Fastify app, { max, timeWindow,
// continueExceeding }, the key the request's x-key header; each request
// is a GET / through app.inject, admitted iff answered 200 (refused: 429).
// Date is driven.
async function fastifyDriver(config) {
	const Fastify = load('fastify')
	const app = Fastify({ logger: false })
	await app.register(load('@fastify/rate-limit'), { ...config, keyGenerator: (request) => request.headers['x-key'] })
	app.get('/', async () => 'ok')
	await app.ready()
	const move = drivenClock(['Date'], () => {})
	const answer = async (key, t) => {
		move(t)
		const res = await app.inject({ method: 'GET', url: '/', headers: { 'x-key': key } })
		if (res.statusCode === 200) return 'A'
		if (res.statusCode === 429) return 'R'
		throw new Error(`the app answered ${res.statusCode}`)
	}
	return { answer, ready: 'ready' }
}

async function main() {
	let driver
	if (storeName === 'memory' || storeName === 'redis') {
		if (!(windowMs > 0) || !(limit > 0)) throw new Error(`want WINDOW_MS and LIMIT, got ${windowMsArg} ${limitArg}`)
		driver = storeName === 'memory' ? await memoryDriver() : await redisDriver()
	} else {
		// PREFIX PRODUCT CONFIG [HOST:PORT]: the product's options as JSON.
		const config = JSON.parse(windowMsArg)
		const drivers = {
			'rate-limiter-flexible': () => rlfMemoryDriver(config),
			'rate-limiter-flexible-redis': () => rlfRedisDriver(config, limitArg),
			'nestjs-throttler': () => nestDriver(config),
			'fastify-rate-limit': () => fastifyDriver(config),
		}
		if (!drivers[storeName]) throw new Error(`unknown driver ${storeName}`)
		driver = await drivers[storeName]()
	}
	const { answer, ready } = driver
	process.stdout.write(`${ready}\n`)
	const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
	for await (const line of lines) {
		const [key, t, cost] = line.split(' ')
		process.stdout.write(`${await answer(key, t, cost === undefined ? 1 : Number(cost))}\n`)
	}
	process.exit(0)
}

main().catch(fail)
