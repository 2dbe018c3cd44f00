import { expect } from 'chai';
import { subjectText } from '../../../src/io/opamp/peer.ts';

describe('tls_subject text', () => {
  it('renders a subject in certificate order', () => {
    expect(subjectText({ CN: 'agent-1', O: 'Example' })).to.equal('CN=agent-1,O=Example');
  });

  it('repeats an attribute that occurs several times', () => {
    expect(subjectText({ OU: ['a', 'b'], CN: 'x' })).to.equal('OU=a,OU=b,CN=x');
  });

  it('escapes special characters so a hostile value cannot pose as more attributes', () => {
    expect(subjectText({ CN: 'evil,O=Admins' })).to.equal('CN=evil\\,O\\=Admins');
    expect(subjectText({ CN: '#lead', O: 'trail ' })).to.equal('CN=\\#lead,O=trail\\ ');
  });

  it('has no text without a subject', () => {
    expect(subjectText(undefined)).to.equal(null);
    expect(subjectText({})).to.equal(null);
  });
});
