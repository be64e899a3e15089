#!/usr/bin/perl
# bench/fast-path-share's SOAP::Lite driver (Debian libsoap-lite-perl): ordinary calls as SOAP::Lite users
# write them, in one of three styles:
#   rpc     the synopsis: SOAP::Lite->uri('urn:lather:v1')->proxy(URL), call('Increment', name => value);
#           SOAP::Lite's defaults: soap:encodingStyle on the Envelope, xsi:type on every value
#   typed   the same, with the encodingStyle removed ($soap->encodingStyle('')), xsi:type kept
#   doclit  the document/literal recipe: default_ns('urn:lather:v1'), autotype(0), encodingStyle(''),
#           on_action('urn:lather:v1#Op')
# usage: perl soaplite_driver.pl ENDPOINT_URL 11|12 N COUNTER STYLE
# N Increment calls (values 41, 42, ...), then HelloWorld, IncCounter(COUNTER), GetCounter(COUNTER).
# SOAP 1.2: SOAP::Lite->soapversion('1.2') before the client is made (it is a package-wide setting).
use strict;
use warnings;
use SOAP::Lite;

my ($endpoint, $version, $count, $counter, $style) = @ARGV;
SOAP::Lite->soapversion('1.2') if $version eq '12';
my $soap;
if ($style eq 'doclit') {
    $soap = SOAP::Lite->new(proxy => [$endpoint, timeout => 10]);
    $soap->default_ns('urn:lather:v1');
    $soap->on_action(sub { 'urn:lather:v1#' . $_[1] });
    $soap->autotype(0);
    $soap->encodingStyle('');
} else {
    $soap = SOAP::Lite->uri('urn:lather:v1')->proxy($endpoint, timeout => 10);
    $soap->encodingStyle('') if $style eq 'typed';
}

my ($failed, $faults) = (0, 0);
sub call {
    my ($op, @args) = @_;
    my $som = eval { $soap->call($op, @args) };
    if (!$som || $som->fault) {
        $faults++;
        print "soap-lite $style: $op: ", ($som ? 'fault: ' . ($som->faultstring // '(no faultstring)') : "died: $@"), "\n"
            if $faults <= 2;
        return undef;
    }
    return $som->result;
}
for my $i (0 .. $count - 1) {
    my $r = call('Increment', SOAP::Data->name(value => 41 + $i));
    $failed++ unless defined $r && $r == 42 + $i;
}
my $hello = call('HelloWorld');
$failed++ unless defined $hello && $hello eq 'Hello World';
my $first = call('IncCounter', SOAP::Data->name(name => $counter));
my $got = call('GetCounter', SOAP::Data->name(name => $counter));
$failed++ unless defined $first && defined $got && $first == $got;
print "soap-lite $style: ", $count + 3, " calls, $failed wrong answers ($faults faults)\n";
exit($failed ? 1 : 0);
