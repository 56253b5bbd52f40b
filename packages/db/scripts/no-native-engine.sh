#!/bin/sh
# Stands in for Prisma's native schema engine, which this project never downloads.
# Generate does not need it; any command that would (migrate, db push) fails loudly here.
echo "berth: Prisma's native schema engine is not used; apply migrations with 'pnpm db:migrate'" >&2
exit 1
