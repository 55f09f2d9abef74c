-- ratebench common prelude: exact integer arithmetic on Lua numbers.
--
-- Redis runs Lua 5.1, whose numbers are IEEE doubles. The Go side checks
-- that every integer a script receives (times rebased to the trace's first
-- window, L, W, costs, token states) is below 2^52. Below that bound a
-- double holds every integer exactly, the sum of two such integers is exact,
-- and math.floor(p / q) is exactly floor(p/q) for positive p, q: the
-- correctly rounded quotient cannot reach the next integer, since that is
-- at least 1/q away and half an ulp of it is below (p+q)/q * 2^-53 < 1/q.

-- le(a, b, c, d) reports a*b <= c*d exactly, for integers 0 <= a, b, c,
-- d < 2^52, without forming a product that could exceed 2^53. It compares
-- the fractions a/d and c/b by their continued fractions: whole parts
-- first, then the reciprocals of the remainders, with the relation
-- reversed at each step. Every value stays below its starting value.
local function le(a, b, c, d)
  if a == 0 or b == 0 then return true end
  if c == 0 or d == 0 then return false end
  local p, q, r, s, flip = a, d, c, b, false
  while true do
    local i, j = math.floor(p / q), math.floor(r / s)
    if i ~= j then return (i < j) ~= flip end
    p, r = p - i * q, r - j * s
    if p == 0 then
      if r == 0 then return true end
      return not flip
    end
    if r == 0 then return flip end
    p, q, r, s, flip = q, p, s, r, not flip
  end
end

-- int formats an integer below 2^52 in decimal (never as 1e+15).
local function int(x) return string.format('%d', x) end
