-- The role and database of Lather's counter store (PostgreSQL 15), docs/scale-out.md.
-- Run as the superuser, any number of times (each step only when it is missing):
--   sudo -u postgres psql -v user=lather -v db=lather -f deploy/postgresql/setup.sql
-- The service creates its own tables (counters, message_ids) at its first connection, in the schema
-- public of this database, which the role owns; it needs no other privilege.
\set ON_ERROR_STOP on
\if :{?user}
\else
  \set user lather
\endif
\if :{?db}
\else
  \set db lather
\endif

-- A login role with no other right (no superuser, no CREATEDB, no CREATEROLE).
SELECT format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE', :'user')
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'user') \gexec

-- The database, owned by that role (PostgreSQL 15: its schema public then belongs to the role too).
SELECT format('CREATE DATABASE %I OWNER %I ENCODING ''UTF8'' TEMPLATE template0', :'db', :'user')
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec

-- Nobody else may connect to it.
SELECT format('REVOKE ALL ON DATABASE %I FROM PUBLIC', :'db') \gexec
SELECT format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO %I', :'db', :'user') \gexec
